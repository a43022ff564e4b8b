package io.rkllm.llama.grammar;

import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The Java check of GBNF text: what llama.cpp parses passes, what it refuses or loops on is refused with why. */
class GbnfCheckTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "root ::= \"a\"",
            "root ::= [a-c]+ \"!\"",
            "root ::= . \"a\"",
            "root ::= | \" \" | \"\\n\" [ \\t]{0,20}",
            "root ::= \"a\"{2} \"b\"{2,} \"c\"{0,3} \"d\"{ 1 , 4 }",
            "root ::= (\"a\" |\n  \"b\")\n",
            "root ::= \"a\" |\n  \"b\"",
            "# a comment\nroot ::= x # another\n\nx ::= [^\"\\\\\\x00-\\x1F] \"\\u00e9\" \"\\U0001F600\"\n",
            "root ::= [\\]\\[] \"\\\"\"",
            "root ::= x*\nx ::= \"a\" x?",
            "root ::= \"\" \"a\""})
    void grammarsLlamaCppParsesPass(String grammar) {
        assertThatNoException().isThrownBy(() -> GbnfCheck.check(grammar));
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                arguments("root ::= foo", "'foo', which is not defined"),
                arguments("x ::= \"a\"", "no 'root' rule"),
                arguments("root ::= \"a\" (", "expecting ')'"),
                arguments("root ::= \"a", "unterminated literal"),
                arguments("root ::= [\\-]", "unknown escape"),
                arguments("root ::= \"\\/\"", "unknown escape"),
                arguments("root ::= \"a\"{,3}", "expecting an integer"),
                arguments("root ::= \"a\"{3,2}", "maximum below its minimum"),
                arguments("root ::= <think>", "token references"),
                arguments("root ::= * \"a\"", "expecting an item"),
                arguments("root ::= \"a\" ::=", "expecting a newline"),
                arguments("root ::= \"a\"{1000000}", "repetition count"),
                arguments("root ::= \"a\"\nroot ::= \"b\"", "defined twice"),
                arguments("root ::= root \"a\" | \"b\"", "left-recursive: root -> root"),
                arguments("root ::= x\nx ::= y \"a\"\ny ::= root | \"b\"", "left-recursive: root -> x -> y -> root"),
                arguments("root ::= \"a\"? root | \"b\"", "left-recursive"),
                arguments("root ::= e root | \"b\"\ne ::= | \"x\"", "left-recursive"),
                arguments("root ::= (\"a\"?)*", "repeats without bound something that can be empty"),
                arguments("root ::= \"a\" e+\ne ::= \"\"", "repeats without bound"));
    }

    @ParameterizedTest
    @MethodSource("refused")
    void whatLlamaCppRefusesOrLoopsOnIsRefused(String grammar, String reason) {
        assertThatThrownBy(() -> GbnfCheck.check(grammar)).isInstanceOf(InvalidGrammarException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void errorsSayWhere() {
        assertThatThrownBy(() -> GbnfCheck.check("root ::= x\nx ::= \"a\" [b"))
                .hasMessageContaining("line 2, column 13");
        assertThatThrownBy(() -> GbnfCheck.check("root ::= \"a\u0000\""))
                .hasMessageContaining("NUL");
    }
}
