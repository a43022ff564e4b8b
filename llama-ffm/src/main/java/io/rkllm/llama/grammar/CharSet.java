package io.rkllm.llama.grammar;

import java.util.ArrayList;
import java.util.List;

/** A set of code points as sorted, disjoint, non-adjacent inclusive ranges {@code {from, to}}. */
final class CharSet {
    static final int MAX = Character.MAX_CODE_POINT;

    private final List<int[]> ranges;

    private CharSet(List<int[]> ranges) {
        this.ranges = ranges;
    }

    static CharSet of(int from, int to) {
        return new CharSet(List.of(new int[] {from, to}));
    }

    static CharSet single(int c) {
        return of(c, c);
    }

    static CharSet empty() {
        return new CharSet(List.of());
    }

    static CharSet chars(String chars) {
        CharSet out = empty();
        for (int c : chars.codePoints().toArray()) {
            out = out.union(single(c));
        }
        return out;
    }

    List<int[]> ranges() {
        return ranges;
    }

    boolean isEmpty() {
        return ranges.isEmpty();
    }

    boolean contains(int c) {
        for (int[] r : ranges) {
            if (c >= r[0] && c <= r[1]) {
                return true;
            }
        }
        return false;
    }

    long size() {
        long n = 0;
        for (int[] r : ranges) {
            n += r[1] - r[0] + 1L;
        }
        return n;
    }

    CharSet union(CharSet other) {
        List<int[]> all = new ArrayList<>(ranges);
        all.addAll(other.ranges);
        all.sort((a, b) -> Integer.compare(a[0], b[0]));
        List<int[]> out = new ArrayList<>();
        for (int[] r : all) {
            if (!out.isEmpty() && r[0] <= out.getLast()[1] + 1) {
                out.getLast()[1] = Math.max(out.getLast()[1], r[1]);
            } else {
                out.add(new int[] {r[0], r[1]});
            }
        }
        return new CharSet(out);
    }

    CharSet complement() {
        List<int[]> out = new ArrayList<>();
        int next = 0;
        for (int[] r : ranges) {
            if (r[0] > next) {
                out.add(new int[] {next, r[0] - 1});
            }
            next = r[1] + 1;
        }
        if (next <= MAX) {
            out.add(new int[] {next, MAX});
        }
        return new CharSet(out);
    }

    CharSet minus(CharSet other) {
        return complement().union(other).complement();
    }

    CharSet intersect(CharSet other) {
        return complement().union(other.complement()).complement();
    }
}
