package io.rkllm.llama.grammar;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Grammars for the decimal numerals of a range of whole numbers ({@code 0} or no leading zero), digit by digit:
 * each length of numeral separately, then at the first digit where the two ends differ, the low end's digit
 * followed by anything at least the low end's rest, the digits strictly between followed by anything, and the
 * high end's digit followed by anything at most the high end's rest.
 */
final class DigitRanges {
    private DigitRanges() {
    }

    /** The numerals of the whole numbers from {@code low} to {@code high} (both at least 0, {@code low <= high}). */
    static String numerals(BigInteger low, BigInteger high) {
        String lo = low.toString();
        String hi = high.toString();
        List<String> lengths = new ArrayList<>();
        int fullFrom = -1; // a run of lengths whose every numeral is in the range: one item for all of them
        for (int length = lo.length(); length <= hi.length(); length++) {
            String from = length == lo.length() ? lo : "1" + "0".repeat(length - 1);
            String to = length == hi.length() ? hi : "9".repeat(length);
            boolean full = from.equals("1" + "0".repeat(length - 1)) && to.equals("9".repeat(length));
            if (full) {
                if (fullFrom == -1) {
                    fullFrom = length;
                }
                continue;
            }
            if (fullFrom != -1) {
                lengths.add(allOfLengths(fullFrom, length - 1));
                fullFrom = -1;
            }
            lengths.add(sameLength(from, to));
        }
        if (fullFrom != -1) {
            lengths.add(allOfLengths(fullFrom, hi.length()));
        }
        return GbnfText.group(lengths);
    }

    /** Every numeral of {@code from} to {@code to} digits without a leading zero. */
    private static String allOfLengths(int from, int to) {
        String rest = GbnfText.repeat("[0-9]", from - 1, to - 1);
        return rest.isEmpty() ? "[1-9]" : "[1-9] " + rest;
    }

    /** The digit strings of {@code from.length()} digits between {@code from} and {@code to}, leading zeros kept. */
    static String sameLength(String from, String to) {
        if (from.isEmpty()) {
            return "";
        }
        char a = from.charAt(0);
        char b = to.charAt(0);
        String fromRest = from.substring(1);
        String toRest = to.substring(1);
        int rest = fromRest.length();
        if (a == b) {
            return join(GbnfText.literal(String.valueOf(a)), sameLength(fromRest, toRest));
        }
        boolean fromLowest = fromRest.chars().allMatch(c -> c == '0');
        boolean toHighest = toRest.chars().allMatch(c -> c == '9');
        List<String> choices = new ArrayList<>();
        if (!fromLowest) {
            choices.add(join(GbnfText.literal(String.valueOf(a)), sameLength(fromRest, "9".repeat(rest))));
        }
        char middleFrom = fromLowest ? a : (char) (a + 1);
        char middleTo = toHighest ? b : (char) (b - 1);
        if (middleFrom <= middleTo) {
            choices.add(join(middleFrom == middleTo ? GbnfText.literal(String.valueOf(middleFrom))
                    : GbnfText.range(middleFrom, middleTo), anyDigits(rest)));
        }
        if (!toHighest) {
            choices.add(join(GbnfText.literal(String.valueOf(b)), sameLength("0".repeat(rest), toRest)));
        }
        return GbnfText.group(choices);
    }

    /** Exactly {@code count} digits. */
    static String anyDigits(int count) {
        return GbnfText.repeat("[0-9]", count, count);
    }

    private static String join(String first, String second) {
        return second.isEmpty() ? first : first + " " + second;
    }
}
