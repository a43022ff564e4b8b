package io.rkllm.llama.grammar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.llama.grammar.JsonWhitespace;
import io.rkllm.llama.text.JsonString;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Patterns against java.util.regex (what the validator uses): on strings built from the pattern's own pieces and on
 * random ones, the grammar accepts a string's JSON text only if the pattern finds a match in it, and, for anchored
 * patterns, exactly then.
 */
class PatternGrammarTest {
    private static final String ALPHABET = "abcxyzAZ09_-.+*?()[]{}|^$\\\"/ é中😀\n\t\u0001";

    private static GbnfMatcher matcher(String pattern) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "string");
        schema.put("pattern", pattern);
        return new GbnfMatcher(JsonSchemaGrammar.of(schema, JsonWhitespace.COMPACT));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "^[A-Z]{2}-\\d{3}$", "^(?:foo|ba[rz]){1,3}$", "^#?[0-9a-fA-F]{6}$", "^\"[^\"\\\\\\n]{0,5}\"$",
            "^\\+?[0-9 ]{3,8}(ext\\.[0-9]{1,3})?$", "^a.c$", "^\\w+@\\w+\\.[a-z]{2,3}$", "^[^a-c]?x*$", "^$",
            "^(a|)b$", "^(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])$", "^\\s\\S\\D\\W$", "^[\\d.\\-]+?$",
            "^\\x41\\u00e9[\\u4e00-\\u4e2f]$", "^[\\t\\n\"\\\\/]*$", "^é+中?😀$", "^a{2}b{0,}c{1,2}$", "^[.]\\.\\/$"})
    void anchoredPatternsMatchExactlyTheSameStrings(String pattern) {
        GbnfMatcher m = matcher(pattern);
        Pattern regex = Pattern.compile(pattern);
        for (String s : candidates(pattern, 3000)) {
            boolean accepted = m.matches(JsonString.quote(s));
            if (accepted || s.codePoints().anyMatch(Character::isSupplementaryCodePoint)) {
                // . and negated classes leave out characters beyond U+FFFF (two UTF-16 units to ECMA-262)
                assertThat(!accepted || regex.matcher(s).find()).as("%s on %s", pattern, s).isTrue();
            } else {
                assertThat(regex.matcher(s).find() && !endsWithLineTerminatorOnly(regex, s))
                        .as("%s refused %s", pattern, JsonString.quote(s)).isFalse();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ab", "a[bc]|x\\d", "^ab", "ab$", "(x|y)z", "\\d{2}"})
    void unanchoredPatternsMatchAnywhere(String pattern) {
        GbnfMatcher m = matcher(pattern);
        Pattern regex = Pattern.compile(pattern);
        for (String s : candidates(pattern, 2000)) {
            if (m.matches(JsonString.quote(s))) {
                assertThat(regex.matcher(s).find()).as("%s on %s", pattern, s).isTrue();
            } else {
                assertThat(regex.matcher(s).find() && !endsWithLineTerminatorOnly(regex, s)
                        && !s.matches("(?s).*[\\u0085\\u2028\\u2029].*")).as("%s refused %s", pattern, s).isFalse();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"^(?=a)a$", "^(?!a).$", "^(?<=a)b$", "(a)\\1", "\\bword\\b", "^\\p{L}+$", "(?i)abc",
            "^a++$", "^a|b$", "a^b", "[]", "[^]", "[a-z&&[^x]]", "x{", "a{2,1}", "\\", "(ab", "ab)", "*a",
            "a{5000}", "[😀]", "\\cA", "\\0"})
    void constructsTheDialectsReadDifferentlyOrNotAtAllAreRefused(String pattern) {
        assertThatThrownBy(() -> matcher(pattern)).isInstanceOf(UnsupportedSchemaException.class)
                .satisfies(e -> assertThat(((UnsupportedSchemaException) e).keyword()).isEqualTo("pattern"))
                .hasMessageContaining(JsonString.quote(pattern));
    }

    /** java.util.regex's {@code $} also matches before a final line terminator; the grammar does not write one. */
    private static boolean endsWithLineTerminatorOnly(Pattern regex, String s) {
        return !s.isEmpty() && "\n\r\u0085\u2028\u2029".indexOf(s.charAt(s.length() - 1)) >= 0
                && regex.matcher(s).find() && !Pattern.compile(regex.pattern().replaceAll("\\$$", "\\\\z"))
                .matcher(s).find();
    }

    /** Strings made of the pattern's own characters and of a mixed alphabet, short enough to hit matches often. */
    private static List<String> candidates(String pattern, int count) {
        Random random = new Random(pattern.hashCode());
        StringBuilder pool = new StringBuilder(ALPHABET);
        pattern.codePoints().forEach(pool::appendCodePoint);
        int[] chars = pool.codePoints().toArray();
        List<String> out = new ArrayList<>(List.of("", "AB-123", "foobar", "#a0B9fF", "\"ab\"", "+123 45ext.9",
                "abc", "a@b.io", "x", "b", "ab", "1999-12", " a_!", "12.-", "Aé中", "\t\n\"\\/", "éé😀", "aabcc",
                "../", "1234", "xz", "ax1"));
        for (int i = 0; i < count; i++) {
            StringBuilder s = new StringBuilder();
            int length = random.nextInt(9);
            for (int j = 0; j < length; j++) {
                s.appendCodePoint(chars[random.nextInt(chars.length)]);
            }
            out.add(s.toString());
        }
        return out;
    }
}
