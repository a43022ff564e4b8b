package io.rkllm.llama.grammar;

import static io.rkllm.llama.grammar.SchemaCatalogue.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.llama.grammar.JsonWhitespace;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bounded integers and numbers, exhaustively: for each pair of bounds, every numeral in a window is accepted
 * exactly when its value lies between them (without a sign for zero, without leading zeros).
 */
class NumberGrammarTest {
    private static GbnfMatcher matcher(String schemaJson) {
        return new GbnfMatcher(JsonSchemaGrammar.of(schema(schemaJson), JsonWhitespace.COMPACT));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "\"minimum\": 0, \"maximum\": 150", "\"minimum\": 7, \"maximum\": 7", "\"minimum\": -37, \"maximum\": 12",
            "\"minimum\": -300, \"maximum\": -12", "\"exclusiveMinimum\": 9, \"exclusiveMaximum\": 1000",
            "\"minimum\": 95", "\"maximum\": -95", "\"maximum\": 0", "\"exclusiveMaximum\": 0", "\"minimum\": 1",
            "\"minimum\": 1.5, \"maximum\": 20.5", "\"exclusiveMinimum\": -1.5, \"exclusiveMaximum\": 1.5",
            "\"minimum\": 100, \"maximum\": 999", "\"minimum\": 199, \"maximum\": 1200", "\"minimum\": 10, \"exclusiveMinimum\": 10"})
    void integersBetweenBounds(String bounds) {
        Range range = Range.of(bounds);
        GbnfMatcher m = matcher("{\"type\": \"integer\", " + bounds + "}");
        for (int n = -1300; n <= 1300; n++) {
            assertThat(m.matches(Integer.toString(n))).as("%d for %s", n, bounds).isEqualTo(range.contains(n));
        }
        assertThat(List.of("-0", "00", "01", "1.0", "1e2", "+1", "")).noneMatch(m::matches);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "\"minimum\": 0, \"maximum\": 1", "\"minimum\": -1.5, \"exclusiveMaximum\": 2.25",
            "\"exclusiveMinimum\": -273.15, \"maximum\": 100.5", "\"exclusiveMinimum\": -0.5, \"exclusiveMaximum\": 0.25",
            "\"minimum\": 0.05, \"maximum\": 0.051", "\"minimum\": 3", "\"exclusiveMaximum\": -0.1",
            "\"minimum\": 2.5, \"maximum\": 2.5", "\"exclusiveMinimum\": 0", "\"maximum\": 0"})
    void numbersBetweenBounds(String bounds) {
        Range range = Range.of(bounds);
        GbnfMatcher m = matcher("{\"type\": \"number\", " + bounds + "}");
        for (String numeral : numerals()) {
            boolean canonical = !numeral.startsWith("-0") || new BigDecimal(numeral).signum() != 0;
            boolean expected = range.contains(new BigDecimal(numeral)) && !numeral.startsWith("-0.0")
                    && !(numeral.startsWith("-") && new BigDecimal(numeral).signum() == 0);
            boolean accepted = m.matches(numeral);
            if (accepted) {
                assertThat(range.contains(new BigDecimal(numeral))).as("%s for %s", numeral, bounds).isTrue();
            } else if (canonical) {
                assertThat(expected).as("%s refused for %s", numeral, bounds).isFalse();
            }
        }
        assertThat(List.of("1e2", ".5", "1.", "--1", "0.1234567")).noneMatch(m::matches);
    }

    /** Numerals from -300 to 300: whole, with one to three decimals, and some with trailing zeros. */
    private static List<String> numerals() {
        List<String> out = new ArrayList<>();
        for (int i = -300_000; i <= 300_000; i += 7) {
            BigDecimal value = BigDecimal.valueOf(i, 3);
            out.add(value.stripTrailingZeros().toPlainString());
            if (i % 49 == 0) {
                out.add(value.toPlainString());
            }
        }
        for (String special : List.of("0", "0.0", "-0", "-0.0", "1", "1.0", "2.25", "2.2499", "0.05", "0.051",
                "0.0505", "0.0511", "-0.5", "-0.4999", "0.25", "0.2499", "100.5", "100.50", "100.51", "-273.15",
                "-273.14", "-273.149", "2.5", "2.50", "2.500001")) {
            out.add(special);
        }
        return out;
    }

    @Test
    void multipleOfOneIsWholeNumbers() {
        GbnfMatcher m = matcher("{\"type\": \"number\", \"multipleOf\": 1, \"minimum\": 1, \"maximum\": 3}");
        assertThat(List.of("1", "2", "3")).allMatch(m::matches);
        assertThat(List.of("1.5", "0", "4")).noneMatch(m::matches);
    }

    @Test
    void unboundedNumbersAreJsonNumbersOfBoundedLength() {
        GbnfMatcher m = matcher("{\"type\": \"number\"}");
        assertThat(List.of("0", "-0", "12.5", "-3e10", "1E-2", "9999999999999999.9999999999999999")).allMatch(m::matches);
        assertThat(List.of("01", "1.", "+1", "1e", "99999999999999999", "1e100")).noneMatch(m::matches);
    }

    @Test
    void whatCannotBeWrittenIsRefused() {
        assertThatThrownBy(() -> matcher("{\"type\": \"number\", \"minimum\": 0.1234567}"))
                .isInstanceOf(UnsupportedSchemaException.class).hasMessageContaining("more than 6 decimals");
        assertThatThrownBy(() -> matcher("{\"type\": \"number\", \"minimum\": 1e12}"))
                .hasMessageContaining("10^9");
        assertThatThrownBy(() -> matcher("{\"type\": \"integer\", \"minimum\": 1e20}"))
                .hasMessageContaining("16 digits");
        assertThatThrownBy(() -> matcher("{\"type\": \"integer\", \"minimum\": 3, \"maximum\": 2}"))
                .hasMessageContaining("no value satisfies it");
        assertThatThrownBy(() -> matcher("{\"type\": \"integer\", \"exclusiveMinimum\": 2, \"exclusiveMaximum\": 3}"))
                .hasMessageContaining("no integer lies between the bounds");
        assertThatThrownBy(() -> matcher("{\"type\": \"number\", \"multipleOf\": 0.5}"))
                .isInstanceOf(UnsupportedSchemaException.class)
                .satisfies(e -> assertThat(((UnsupportedSchemaException) e).keyword()).isEqualTo("multipleOf"));
    }

    /** The bounds of a schema fragment, read the way the specification means them. */
    private record Range(BigDecimal min, boolean minInclusive, BigDecimal max, boolean maxInclusive) {
        static Range of(String bounds) {
            var s = schema("{" + bounds + "}");
            BigDecimal min = null;
            boolean minInclusive = true;
            BigDecimal max = null;
            boolean maxInclusive = true;
            if (s.get("minimum") instanceof Number n) {
                min = new BigDecimal(n.toString());
            }
            if (s.get("exclusiveMinimum") instanceof Number n && (min == null
                    || new BigDecimal(n.toString()).compareTo(min) >= 0)) {
                min = new BigDecimal(n.toString());
                minInclusive = false;
            }
            if (s.get("maximum") instanceof Number n) {
                max = new BigDecimal(n.toString());
            }
            if (s.get("exclusiveMaximum") instanceof Number n && (max == null
                    || new BigDecimal(n.toString()).compareTo(max) <= 0)) {
                max = new BigDecimal(n.toString());
                maxInclusive = false;
            }
            return new Range(min, minInclusive, max, maxInclusive);
        }

        boolean contains(long value) {
            return contains(BigDecimal.valueOf(value));
        }

        boolean contains(BigDecimal value) {
            if (min != null && (minInclusive ? value.compareTo(min) < 0 : value.compareTo(min) <= 0)) {
                return false;
            }
            return max == null || (maxInclusive ? value.compareTo(max) <= 0 : value.compareTo(max) < 0);
        }
    }
}
