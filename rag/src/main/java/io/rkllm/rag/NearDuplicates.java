package io.rkllm.rag;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Removes passages that repeat another one (the same agency story on two news sites, a quote, a
 * boilerplate paragraph shared by several pages): two passages are duplicates when the share of the
 * smaller one's word 3-shingles found in the other reaches the threshold. The better-scored passage
 * (or the earlier one on a tie) is kept.
 */
final class NearDuplicates {
    private final double threshold;

    NearDuplicates(double threshold) {
        this.threshold = threshold;
    }

    /** Returns the passages to drop; {@code passages} must already carry their scores. */
    Set<Passage> find(List<Passage> passages) {
        List<Set<String>> shingles = new ArrayList<>();
        for (Passage p : passages) {
            shingles.add(shingles(p.text));
        }
        Set<Passage> drop = new HashSet<>();
        for (int i = 0; i < passages.size(); i++) {
            if (drop.contains(passages.get(i))) {
                continue;
            }
            for (int j = i + 1; j < passages.size(); j++) {
                if (drop.contains(passages.get(j))) {
                    continue;
                }
                if (similar(shingles.get(i), shingles.get(j), passages.get(i).text, passages.get(j).text)) {
                    Passage a = passages.get(i);
                    Passage b = passages.get(j);
                    drop.add(b.score > a.score + 1e-9 ? a : b);
                    if (drop.contains(a)) {
                        break;
                    }
                }
            }
        }
        return drop;
    }

    private boolean similar(Set<String> a, Set<String> b, String ta, String tb) {
        int small = Math.min(a.size(), b.size());
        if (small < 4) {
            return norm(ta).equals(norm(tb)) && !norm(ta).isEmpty();
        }
        Set<String> smaller = a.size() <= b.size() ? a : b;
        Set<String> larger = smaller == a ? b : a;
        int common = 0;
        for (String s : smaller) {
            if (larger.contains(s)) {
                common++;
            }
        }
        return common >= threshold * small;
    }

    private static String norm(String s) {
        return s.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}]+", " ").strip();
    }

    static Set<String> shingles(String text) {
        List<String> words = new ArrayList<>();
        String t = text.toLowerCase(Locale.ROOT);
        StringBuilder w = new StringBuilder();
        for (int i = 0; i <= t.length(); ) {
            int cp = i < t.length() ? t.codePointAt(i) : ' ';
            i += i < t.length() ? Character.charCount(cp) : 1;
            if (Scripts.isCjk(cp)) {
                if (!w.isEmpty()) {
                    words.add(w.toString());
                    w.setLength(0);
                }
                words.add(new String(Character.toChars(cp)));
            } else if (Character.isLetterOrDigit(cp)) {
                w.appendCodePoint(cp);
            } else if (!w.isEmpty()) {
                words.add(w.toString());
                w.setLength(0);
            }
        }
        Set<String> out = new HashSet<>();
        for (int k = 0; k + 2 < words.size(); k++) {
            out.add(words.get(k) + ' ' + words.get(k + 1) + ' ' + words.get(k + 2));
        }
        return out;
    }
}
