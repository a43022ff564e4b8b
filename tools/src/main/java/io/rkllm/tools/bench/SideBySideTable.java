package io.rkllm.tools.bench;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@link SideBySide}'s figures as a Markdown table: each row's median and range per server, and the median of the
 * rounds' ratios (each round's two pairs of samples taken together).
 */
final class SideBySideTable {
    private SideBySideTable() {
    }

    static String markdown(String setup, SideBySide.Result r) {
        StringBuilder b = new StringBuilder();
        b.append(setup).append('\n').append('\n');
        b.append("| ").append(r.plan().rounds()).append(" rounds, ").append(r.other().label()).append(" and ")
                .append(r.ours().label()).append(" in turns A B B A for each part | ").append(r.other().label())
                .append(" | ")
                .append(r.ours().label()).append(" | ratio | better |\n|---|---:|---:|---:|---|\n");
        row(b, r, "one chat, decode tokens/s", SideBySide.Samples::oneDecode, 1, true);
        row(b, r, "its follow-up, first token (s)", SideBySide.Samples::followUpFirstToken, 3, false);
        row(b, r, "a long prompt (" + r.plan().promptWords() + " words), prefill tokens/s",
                SideBySide.Samples::prefillRate, 0, true);
        row(b, r, "four chats at once, decode tokens/s while all four decode", SideBySide.Samples::fourDecode, 1,
                true);
        row(b, r, "four chats at once, all their tokens over the wall time (tokens/s)", SideBySide.Samples::fourOverall, 1,
                true);
        row(b, r, "four long prompts together, the first first token (s)", SideBySide.Samples::fourLongFastestFirst,
                2, false);
        row(b, r, "four long prompts together, the last first token (s)", SideBySide.Samples::fourLongSlowestFirst,
                2, false);
        b.append("| the same answers every turn (one chat; four at once) | ").append(same(r.otherSamples()))
                .append(" | ").append(same(r.ourSamples())).append(" | | |\n");
        b.append('\n').append("Ratio: the median of the rounds' ratios of ").append(r.ours().label())
                .append("'s samples over ").append(r.other().label()).append("'s (each part ran on both in turns"
                        + " A B B A; a round's ratio is the geometric mean of B's first sample over A's first and B's"
                        + " second over A's second, in which each server has a turn after the other's and a turn after"
                        + " its own); \"better\" says which way is better for that row; in brackets, from four rounds"
                        + " on, the middle half of the rounds' ratios: a row whose brackets hold 1.00 is within what"
                        + " this machine's drift moves a ratio.\n");
        return b.toString();
    }

    private static void row(StringBuilder b, SideBySide.Result r, String name,
                            Function<SideBySide.Samples, List<Double>> of, int decimals, boolean higher) {
        List<Double> a = of.apply(r.otherSamples());
        List<Double> o = of.apply(r.ourSamples());
        b.append("| ").append(name).append(" | ").append(cell(a, decimals)).append(" | ").append(cell(o, decimals))
                .append(" | ").append(ratioCell(roundRatios(o, a))).append(" | ").append(higher ? "higher" : "lower")
                .append(" |\n");
    }

    /**
     * The median of the rounds' ratios, and from four rounds on the middle half of them (between the hinges: the
     * medians of the lower and the upper half), which shows how far this machine's noise moves a ratio.
     */
    static String ratioCell(List<Double> ratios) {
        double median = median(ratios);
        if (Double.isNaN(median)) {
            return "";
        }
        String cell = String.format(Locale.ROOT, "%.2fx", median);
        if (ratios.size() < 4) {
            return cell;
        }
        List<Double> sorted = ratios.stream().sorted().toList();
        int half = sorted.size() / 2;
        return cell + String.format(Locale.ROOT, " (%.2f-%.2f)", median(sorted.subList(0, half)),
                median(sorted.subList(sorted.size() - half, sorted.size())));
    }

    /**
     * One ratio a round: the geometric mean of its two pairs' ratios (A's first sample with B's first, B's second with
     * A's second; each server's samples of a round are its i-th and i+1-th, taken seconds apart). A sample depends on
     * its place in A B B A (a turn right after the other server's, or after its own: here the medians of the rounds'
     * first pairs and of their second pairs lay up to a tenth apart), and each server has one turn of each kind in a
     * round: its two pairs together cancel the place, where the median of all the pairs fell in the gap between the two
     * pairs' clusters and moved with their edges. A machine whose speed drifts between rounds moves no ratio either; a
     * round with a sample missing is left out.
     */
    static List<Double> roundRatios(List<Double> ours, List<Double> other) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i + 1 < Math.min(ours.size(), other.size()); i += 2) {
            double r = Math.sqrt(ours.get(i) / other.get(i) * (ours.get(i + 1) / other.get(i + 1)));
            if (!Double.isNaN(r) && !Double.isInfinite(r)) {
                ratios.add(r);
            }
        }
        return ratios;
    }

    /** The median, with the range when there is more than one sample. */
    static String cell(List<Double> values, int decimals) {
        List<Double> known = values.stream().filter(v -> !v.isNaN()).sorted().toList();
        if (known.isEmpty()) {
            return "-";
        }
        String f = "%." + decimals + "f";
        String m = String.format(Locale.ROOT, f, median(known));
        return known.size() == 1 ? m : m + " (" + String.format(Locale.ROOT, f, known.getFirst()) + "-"
                + String.format(Locale.ROOT, f, known.getLast()) + ")";
    }

    static double median(List<Double> values) {
        List<Double> known = values.stream().filter(v -> !v.isNaN()).sorted().toList();
        if (known.isEmpty()) {
            return Double.NaN;
        }
        int n = known.size();
        return n % 2 == 1 ? known.get(n / 2) : (known.get(n / 2 - 1) + known.get(n / 2)) / 2;
    }

    /** "yes; yes", or how many different answers came. */
    static String same(SideBySide.Samples s) {
        int one = new HashSet<>(s.oneAnswers()).size();
        int four = new HashSet<>(s.fourAnswers()).size();
        return (one == 1 ? "yes" : "no (" + one + " different)") + "; " + (four == 1 ? "yes" : "no (" + four
                + " different)");
    }
}
