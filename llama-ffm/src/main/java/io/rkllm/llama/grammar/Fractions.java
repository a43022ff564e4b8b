package io.rkllm.llama.grammar;

import java.util.ArrayList;
import java.util.List;

/**
 * The digits after a decimal point, bounded: the fractions {@code f} (digit strings, read as 0.f) with
 * {@code low <= f} (or {@code <}) and {@code f <= high} (or {@code <}), at most {@code budget} digits. A bound is a
 * digit string without trailing zeros ({@code ""} is zero) or absent. Built digit by digit: the first digit
 * decides unless it equals a bound's first digit, and then the rest is bounded by that bound's rest.
 */
final class Fractions {
    private Fractions() {
    }

    /**
     * A set of digit strings: whether the empty one is in it (no decimal point at all) and a grammar of the
     * non-empty ones ({@code null}: none).
     */
    record Digits(boolean empty, String nonEmpty) {
        static final Digits NONE = new Digits(false, null);

        boolean isNone() {
            return !empty && nonEmpty == null;
        }

        /** As written after an integer part: a decimal point and the digits, or nothing. */
        String afterPoint() {
            if (nonEmpty == null) {
                return "";
            }
            String point = "\".\" " + nonEmpty;
            return empty ? "(" + point + ")?" : point;
        }

        /** As the rest after one digit already written: the rest's grammar, optional if it may be empty. */
        String afterDigit() {
            if (nonEmpty == null) {
                return "";
            }
            return empty ? GbnfText.item(nonEmpty) + "?" : nonEmpty;
        }
    }

    static Digits any(int budget) {
        return budget == 0 ? new Digits(true, null) : new Digits(true, GbnfText.repeat("[0-9]", 1, budget));
    }

    /**
     * @param low  the lower bound's digits, or null for none (that is, at least zero)
     * @param high the upper bound's digits, or null for none
     */
    static Digits between(String low, boolean lowInclusive, String high, boolean highInclusive, int budget) {
        if (low != null && low.isEmpty() && lowInclusive) {
            low = null; // at least zero: no bound
        }
        if (high != null && high.isEmpty()) {
            if (!highInclusive) {
                return Digits.NONE; // below zero
            }
            return budget == 0 ? new Digits(true, null) : new Digits(true, GbnfText.repeat("[0]", 1, budget));
        }
        if (low == null && high == null) {
            return any(budget);
        }
        boolean empty = low == null && (high == null || !high.isEmpty() || highInclusive);
        if (budget == 0) {
            return new Digits(empty, null);
        }
        int lowDigit = low == null ? 0 : digit(low);
        int highDigit = high == null ? 9 : digit(high);
        String lowRest = low == null ? null : rest(low);
        String highRest = high == null ? null : rest(high);
        List<String> choices = new ArrayList<>();
        if (low != null && high != null && lowDigit == highDigit) {
            add(choices, lowDigit, lowDigit, between(lowRest, lowInclusive, highRest, highInclusive, budget - 1));
        } else {
            int middleFrom = lowDigit;
            if (low != null) {
                middleFrom = lowDigit + 1;
                add(choices, lowDigit, lowDigit, between(lowRest, lowInclusive, null, true, budget - 1));
            }
            int middleTo = highDigit;
            if (high != null) {
                middleTo = highDigit - 1;
            }
            if (middleFrom <= middleTo) {
                add(choices, middleFrom, middleTo, any(budget - 1));
            }
            if (high != null) {
                add(choices, highDigit, highDigit, between(null, true, highRest, highInclusive, budget - 1));
            }
        }
        return new Digits(empty, choices.isEmpty() ? null : GbnfText.group(choices));
    }

    private static void add(List<String> choices, int from, int to, Digits rest) {
        if (rest.isNone()) {
            return;
        }
        String digit = from == to ? GbnfText.literal(String.valueOf(from)) : GbnfText.range('0' + from, '0' + to);
        String after = rest.afterDigit();
        choices.add(after.isEmpty() ? digit : digit + " " + after);
    }

    private static int digit(String digits) {
        return digits.isEmpty() ? 0 : digits.charAt(0) - '0';
    }

    /** The digits after the first, without trailing zeros. */
    private static String rest(String digits) {
        return digits.isEmpty() ? "" : digits.substring(1).replaceAll("0+$", "");
    }
}
