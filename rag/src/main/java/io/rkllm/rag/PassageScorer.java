package io.rkllm.rag;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Scores passages for a question: lexical relevance (BM25 over the passages of this request, mixed
 * with the idf-weighted share of the question's terms the passage contains) and quality (prose
 * rather than leftovers of navigation, lists of names or tables of contents).
 */
final class PassageScorer {
    private static final double K1 = 1.2;
    private static final double B = 0.75;
    /** Unrelated passages assumed besides the request's own when computing idf. */
    private static final int IDF_PRIOR = 10;

    /** Sets {@code relevance} (0..1) of every passage; returns false when the query has no content terms. */
    boolean relevance(List<Passage> passages, List<String> queryTerms) {
        Set<String> q = new LinkedHashSet<>(queryTerms);
        if (q.isEmpty() || passages.isEmpty()) {
            for (Passage p : passages) {
                p.relevance = 0;
            }
            return false;
        }
        int n = passages.size();
        Map<String, Integer> df = new HashMap<>();
        Map<Passage, Map<String, Integer>> tf = new HashMap<>();
        double totalLength = 0;
        Map<Passage, Integer> lengths = new HashMap<>();
        for (Passage p : passages) {
            List<String> terms = Terms.of(p.text);
            lengths.put(p, terms.size());
            totalLength += terms.size();
            Map<String, Integer> counts = new HashMap<>();
            for (String t : terms) {
                if (q.contains(t)) {
                    counts.merge(t, 1, Integer::sum);
                }
            }
            tf.put(p, counts);
            for (String t : counts.keySet()) {
                df.merge(t, 1, Integer::sum);
            }
        }
        double avg = Math.max(1, totalLength / n);
        Map<String, Double> idf = new HashMap<>();
        double idfSum = 0;
        for (String t : q) {
            int d = df.getOrDefault(t, 0);
            // smoothed as if IDF_PRIOR unrelated passages came along: with a handful of passages plain idf
            // would punish the topic words every passage shares; a term no passage contains still counts
            // in the denominator of coverage
            double v = Math.log(1 + (n + IDF_PRIOR - d + 0.5) / (d + 0.5));
            idf.put(t, v);
            idfSum += v;
        }
        double maxBm25 = 0;
        Map<Passage, Double> bm25 = new HashMap<>();
        for (Passage p : passages) {
            double s = 0;
            int len = lengths.get(p);
            for (Map.Entry<String, Integer> e : tf.get(p).entrySet()) {
                double f = e.getValue();
                s += idf.get(e.getKey()) * f * (K1 + 1) / (f + K1 * (1 - B + B * len / avg));
            }
            bm25.put(p, s);
            maxBm25 = Math.max(maxBm25, s);
        }
        for (Passage p : passages) {
            double covered = 0;
            for (String t : tf.get(p).keySet()) {
                covered += idf.get(t);
            }
            // half idf-weighted (rare words matter more), half plain share of the question's terms (so that
            // a word of the question no passage contains, like a foreign question word, cannot drown the rest)
            double coverage = idfSum > 0 ? 0.5 * covered / idfSum + 0.5 * tf.get(p).size() / (double) q.size() : 0;
            double norm = maxBm25 > 0 ? bm25.get(p) / maxBm25 : 0;
            // coverage is absolute (how much of the question the passage speaks to), bm25 only ranks
            p.relevance = coverage * (0.5 + 0.5 * norm);
        }
        return true;
    }

    /** Share of the query's distinct terms found in {@code text}, unweighted (for follow-up checks). */
    static double overlap(List<String> queryTerms, String text) {
        Set<String> q = new HashSet<>(queryTerms);
        if (q.isEmpty()) {
            return 0;
        }
        Set<String> t = new HashSet<>(Terms.of(text));
        int hit = 0;
        for (String s : q) {
            if (t.contains(s)) {
                hit++;
            }
        }
        return hit / (double) q.size();
    }

    /** Quality of a fenced code block: the cleaner kept it as the article's, so it is content, and worth a neighbour's place. */
    static final double CODE_QUALITY = 0.6;

    /**
     * Quality of a passage (0..1): running prose scores high; a passage of short unpunctuated lines,
     * repeated words or leftover widget labels scores low. Document chunks start from a floor, since
     * they were written as documents. Fenced code counts as {@link #CODE_QUALITY} for its share of
     * the passage: its lines are neither sentences nor labels.
     */
    double quality(Passage p, boolean web) {
        String[] lines = p.text.split("\n");
        int chars = 0;
        int sentenceLines = 0;
        int labelLines = 0;
        int nonEmpty = 0;
        int codeChars = 0;
        boolean inCode = false;
        StringBuilder prose = new StringBuilder();
        for (String line : lines) {
            String s = line.strip();
            if (PassageSplitter.isFence(s)) {
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                codeChars += s.length();
                continue;
            }
            if (s.isEmpty()) {
                continue;
            }
            nonEmpty++;
            chars += s.length();
            prose.append(s).append('\n');
            if (SentenceMeasures.hasSentencePunctuation(s) || s.length() > 120) {
                sentenceLines++;
            }
            if (s.length() < 60 && (Boilerplate.isLabel(s) || Boilerplate.hasPhrase(s))) {
                labelLines++;
            }
        }
        double q;
        if (nonEmpty == 0) {
            q = codeChars > 0 ? CODE_QUALITY : 0;
        } else {
            double density = Math.min(1, FunctionWords.density(prose.toString()) / 0.4);
            double sentences = sentenceLines / (double) nonEmpty;
            double avgLine = Math.min(1, chars / (double) nonEmpty / 80.0);
            q = 0.4 * density + 0.3 * sentences + 0.3 * avgLine - 0.5 * labelLines / (double) nonEmpty;
            if (PageLines.isData(prose.toString()) || prose.toString().matches("(?s).*\\d.*")) {
                q += 0.05; // figures are what questions often ask for
            }
            q = (q * chars + CODE_QUALITY * codeChars) / (chars + codeChars);
        }
        if (!web) {
            q = 0.5 + 0.5 * q;
        }
        return Math.max(0, Math.min(1, q));
    }
}
