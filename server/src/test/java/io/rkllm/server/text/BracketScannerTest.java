package io.rkllm.server.text;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.text.BracketScanner.Syntax;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BracketScannerTest {
    /** The characters of {@code text} that are code, the others as '.'. */
    private static String code(String text, Syntax syntax) {
        BracketScanner scanner = new BracketScanner(text, 0, syntax);
        StringBuilder out = new StringBuilder();
        while (scanner.next()) {
            out.append(scanner.inCode() ? scanner.current() : '.');
        }
        return out.toString();
    }

    /** Where the bracket that opens {@code text} closes; -1 when it does not. */
    private static int end(String text, Syntax syntax) {
        BracketScanner scanner = new BracketScanner(text, 0, syntax);
        while (scanner.next()) {
            if (scanner.closes() && scanner.depth() == 0) {
                return scanner.index();
            }
        }
        return -1;
    }

    @Test
    void stringLiteralsAndTheirQuotesAreNotCode() {
        assertThat(code("{\"a}\":[1]}", Syntax.JSON)).isEqualTo("{....:[1]}");
        // an escaped quote does not end the string; an escaped backslash before the quote does not stop it ending
        assertThat(code("[\"a\\\"]\", \"b\\\\\", 2]", Syntax.JSON)).isEqualTo("[......, ....., 2]");
    }

    @Test
    void jsonTakesAnApostropheAsTextAndJinjaAsAQuote() {
        assertThat(end("{\"it's\": \"}\"} tail", Syntax.JSON)).isEqualTo(12);
        assertThat(code("['a]', \"b'\", '\\\\']", Syntax.JINJA)).isEqualTo("[...., ...., ....]");
        assertThat(end("(x['a)'], {'b': 1}) + y", Syntax.JINJA)).isEqualTo(18);
    }

    @Test
    void parenthesesNestOnlyInJinja() {
        assertThat(end("{\"a\": (1}", Syntax.JSON)).isEqualTo(8);
        assertThat(end("{\"a\": (1}", Syntax.JINJA)).isEqualTo(-1);
    }

    @Test
    void aClosingBracketThatDoesNotMatchIsText() {
        BracketScanner scanner = new BracketScanner("{\"a\": [1}]}", 0, Syntax.JSON);
        List<Integer> depths = new ArrayList<>();
        while (scanner.next()) {
            depths.add(scanner.depth());
        }
        assertThat(depths).containsExactly(1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 0);
    }

    @Test
    void textCutShortSaysWhatIsStillOpen() {
        BracketScanner scanner = new BracketScanner("x {\"a\": [{\"b\": \"cut \\\"", 2, Syntax.JSON);
        while (scanner.next()) {
            assertThat(scanner.index()).isGreaterThanOrEqualTo(2);
        }
        assertThat(scanner.inLiteral()).isTrue();
        assertThat(scanner.closers()).isEqualTo("}]}");
        assertThat(scanner.depth()).isEqualTo(3);
    }

    @Test
    void emptyTextHasNothingOpen() {
        BracketScanner scanner = new BracketScanner("", 0, Syntax.JSON);
        assertThat(scanner.next()).isFalse();
        assertThat(scanner.depth()).isZero();
        assertThat(scanner.inLiteral()).isFalse();
        assertThat(scanner.closers()).isEmpty();
    }
}
