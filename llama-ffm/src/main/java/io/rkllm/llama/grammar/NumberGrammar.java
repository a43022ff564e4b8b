package io.rkllm.llama.grammar;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Integers and numbers between bounds ({@code minimum}, {@code maximum}, {@code exclusiveMinimum},
 * {@code exclusiveMaximum}, in the 2020-12 form or draft 4's boolean one), exactly: the sign, then the integer
 * part by {@link DigitRanges}, then for numbers the fraction by {@link Fractions} where the integer part equals a
 * bound's. Bounded numbers are written without exponent, with at most 9 integer and 6 fraction digits: 15
 * significant digits, which a double (how most JSON parsers read them, the validator's too) keeps apart, so that a
 * number just inside an exclusive bound is not read as the bound itself. Integers have at most 16 digits.
 */
final class NumberGrammar {
    private static final BigInteger MAX_INTEGER = BigInteger.TEN.pow(16).subtract(BigInteger.ONE);
    private static final BigInteger MAX_INTEGER_PART = BigInteger.TEN.pow(9).subtract(BigInteger.ONE);
    private static final int FRACTION_DIGITS = 6;

    private NumberGrammar() {
    }

    /** A bound: its value, and whether the value itself is allowed. */
    record Bound(BigDecimal value, boolean inclusive, String keyword) {
        Bound negate() {
            return new Bound(value.negate(), inclusive, keyword);
        }
    }

    /** The grammar (without trailing space) of the integers, or the numbers, that {@code schema} bounds. */
    static String bounded(Map<String, Object> schema, boolean integer, String at) {
        Bound lower = lower(schema, at);
        Bound upper = upper(schema, at);
        if (lower == null && upper == null) {
            return null;
        }
        if (lower != null && upper != null) {
            int c = lower.value.compareTo(upper.value);
            if (c > 0 || (c == 0 && !(lower.inclusive && upper.inclusive))) {
                throw new UnsatisfiableSchemaException(lower.keyword, at, "the lower bound is above the upper bound");
            }
        }
        List<String> choices = new ArrayList<>();
        // zero and above, written without a sign
        if (upper == null || upper.value.signum() > 0 || (upper.value.signum() == 0 && upper.inclusive)) {
            Bound low = lower == null || lower.value.signum() < 0 ? new Bound(BigDecimal.ZERO, true, "minimum") : lower;
            String magnitude = magnitude(low, upper, integer, at);
            if (magnitude != null) {
                choices.add(magnitude);
            }
        }
        // below zero: "-" and a magnitude above zero (so never "-0")
        if (lower == null || lower.value.signum() < 0) {
            Bound low = upper != null && upper.value.signum() < 0 ? upper.negate()
                    : new Bound(BigDecimal.ZERO, false, "maximum");
            String magnitude = magnitude(low, lower == null ? null : lower.negate(), integer, at);
            if (magnitude != null) {
                choices.add("\"-\" " + GbnfText.item(magnitude));
            }
        }
        if (choices.isEmpty()) {
            throw new UnsatisfiableSchemaException(lower == null ? "maximum" : lower.keyword, at, "no "
                    + (integer ? "integer" : "number") + " lies between the bounds");
        }
        return GbnfText.group(choices);
    }

    /** The unsigned numerals between {@code low} (at least zero) and {@code high} (null: unbounded). */
    private static String magnitude(Bound low, Bound high, boolean integer, String at) {
        return integer ? wholeMagnitude(low, high, at) : decimalMagnitude(low, high, at);
    }

    private static String wholeMagnitude(Bound low, Bound high, String at) {
        BigInteger from = low.inclusive ? low.value.setScale(0, RoundingMode.CEILING).toBigInteger()
                : low.value.setScale(0, RoundingMode.FLOOR).toBigInteger().add(BigInteger.ONE);
        BigInteger to = MAX_INTEGER;
        if (high != null) {
            to = high.inclusive ? high.value.setScale(0, RoundingMode.FLOOR).toBigInteger()
                    : high.value.setScale(0, RoundingMode.CEILING).toBigInteger().subtract(BigInteger.ONE);
            to = to.min(MAX_INTEGER);
        }
        if (from.compareTo(MAX_INTEGER) > 0) {
            throw new UnsupportedSchemaException(low.keyword, at, "integers of more than 16 digits are not generated");
        }
        return from.compareTo(to) > 0 ? null : DigitRanges.numerals(from, to);
    }

    private static String decimalMagnitude(Bound low, Bound high, String at) {
        checkDecimals(low, at);
        BigInteger lowWhole = low.value.setScale(0, RoundingMode.FLOOR).toBigInteger();
        String lowFraction = fraction(low.value);
        if (lowWhole.compareTo(MAX_INTEGER_PART) > 0) {
            throw new UnsupportedSchemaException(low.keyword, at, "numbers of 10^9 and more are not generated with "
                    + "bounds");
        }
        BigInteger highWhole = null;
        String highFraction = null;
        if (high != null && high.value.compareTo(new BigDecimal(MAX_INTEGER_PART.add(BigInteger.ONE))) < 0) {
            checkDecimals(high, at);
            highWhole = high.value.setScale(0, RoundingMode.FLOOR).toBigInteger();
            highFraction = fraction(high.value);
        }
        List<String> choices = new ArrayList<>();
        if (highWhole != null && lowWhole.equals(highWhole)) {
            whole(choices, lowWhole, Fractions.between(lowFraction, low.inclusive, highFraction, high.inclusive,
                    FRACTION_DIGITS));
        } else {
            BigInteger middleFrom = lowWhole.add(BigInteger.ONE);
            if (lowFraction.isEmpty() && low.inclusive) {
                middleFrom = lowWhole; // its fractions are all allowed: one range with the whole numbers above
            } else {
                whole(choices, lowWhole, Fractions.between(lowFraction, low.inclusive, null, true, FRACTION_DIGITS));
            }
            BigInteger middleTo = highWhole == null ? MAX_INTEGER_PART : highWhole.subtract(BigInteger.ONE);
            if (middleFrom.compareTo(middleTo) <= 0) {
                String digits = DigitRanges.numerals(middleFrom, middleTo);
                choices.add(join(GbnfText.item(digits), Fractions.any(FRACTION_DIGITS).afterPoint()));
            }
            if (highWhole != null) {
                whole(choices, highWhole, Fractions.between(null, true, highFraction, high.inclusive,
                        FRACTION_DIGITS));
            }
        }
        return choices.isEmpty() ? null : GbnfText.group(choices);
    }

    private static void whole(List<String> choices, BigInteger whole, Fractions.Digits fraction) {
        if (!fraction.isNone()) {
            choices.add(join(GbnfText.literal(whole.toString()), fraction.afterPoint()));
        }
    }

    private static String join(String first, String second) {
        return second.isEmpty() ? first : first + " " + second;
    }

    private static void checkDecimals(Bound bound, String at) {
        if (bound.value.stripTrailingZeros().scale() > FRACTION_DIGITS) {
            throw new UnsupportedSchemaException(bound.keyword, at, "a bound with more than " + FRACTION_DIGITS
                    + " decimals (" + bound.value.toPlainString() + ")");
        }
    }

    /** The digits after the point of a value at least zero, without trailing zeros. */
    private static String fraction(BigDecimal value) {
        BigDecimal frac = value.subtract(new BigDecimal(value.setScale(0, RoundingMode.FLOOR).toBigInteger()));
        if (frac.signum() == 0) {
            return "";
        }
        String plain = frac.stripTrailingZeros().toPlainString();
        return plain.substring(plain.indexOf('.') + 1);
    }

    private static Bound lower(Map<String, Object> schema, String at) {
        return stronger(bound(schema, "minimum", "exclusiveMinimum", at), exclusive(schema, "exclusiveMinimum",
                "minimum", at), true);
    }

    private static Bound upper(Map<String, Object> schema, String at) {
        return stronger(bound(schema, "maximum", "exclusiveMaximum", at), exclusive(schema, "exclusiveMaximum",
                "maximum", at), false);
    }

    /** {@code minimum} or {@code maximum}, which draft 4's {@code exclusiveMinimum: true} makes exclusive. */
    private static Bound bound(Map<String, Object> schema, String key, String exclusiveKey, String at) {
        if (!schema.containsKey(key)) {
            return null;
        }
        boolean exclusive = Boolean.TRUE.equals(schema.get(exclusiveKey));
        return new Bound(Schemas.number(schema, key, at), !exclusive, key);
    }

    /** The 2019+ {@code exclusiveMinimum} or {@code exclusiveMaximum} (a number; a boolean is draft 4's). */
    private static Bound exclusive(Map<String, Object> schema, String key, String inclusiveKey, String at) {
        Object value = schema.get(key);
        if (value == null || value instanceof Boolean) {
            if (value instanceof Boolean && !schema.containsKey(inclusiveKey)) {
                throw new UnsupportedSchemaException(key, at, "a boolean " + key + " without " + inclusiveKey);
            }
            return null;
        }
        return new Bound(Schemas.number(schema, key, at), false, key);
    }

    private static Bound stronger(Bound a, Bound b, boolean lower) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        int c = a.value.compareTo(b.value);
        if (c == 0) {
            return a.inclusive ? b : a;
        }
        return (c > 0) == lower ? a : b;
    }
}
