package io.rkllm.rag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fills the token budget: the best-scored passages first (the best one cut to its first sentences if
 * even it does not fit), then the neighbours of the strongest ones while room remains, since an
 * answer often sits next to the words the user typed.
 */
final class BudgetPacker {
    /** A neighbour is added for context only if it reads as prose. */
    static final double NEIGHBOUR_QUALITY = 0.5;

    record Packed(List<Passage> passages, int used) {
    }

    private final TokenCounter tok;
    private final int budget;
    private final int maxPassages;

    BudgetPacker(TokenCounter tok, int budget, int maxPassages) {
        this.tok = tok;
        this.budget = budget;
        this.maxPassages = maxPassages;
    }

    /**
     * @param candidates    passages allowed in the prompt (sorted here by score)
     * @param sources       the request's sources (for the [id] markers)
     * @param rings         how many passages on each side of a strong passage to add (0 = none)
     * @param all           every passage, to find neighbours
     * @param excluded      passages never to add as neighbours (duplicates)
     * @param bestRelevance relevance of the best passage; seeds need half of it
     */
    Packed pack(List<Passage> candidates, List<RetrievedSource> sources, int rings, List<Passage> all,
                Set<Passage> excluded, double bestRelevance) {
        List<Passage> sorted = new ArrayList<>(candidates);
        sorted.sort(Comparator.comparingDouble((Passage p) -> -p.score).thenComparingInt(p -> p.source)
                .thenComparingInt(p -> p.order));
        List<Passage> kept = new ArrayList<>();
        int used = 0;
        for (Passage p : sorted) {
            if (kept.size() >= maxPassages) {
                break;
            }
            String marker = marker(sources, p);
            int cost = tok.count(marker + p.text) + 1;
            if (used + cost <= budget) {
                p.tokens = cost;
                kept.add(p);
                used += cost;
            } else if (kept.isEmpty()) {
                Passage cut = truncate(p, marker, budget, tok);
                if (cut != null) {
                    kept.add(cut);
                    used += cut.tokens;
                }
            }
        }
        if (kept.isEmpty() || rings <= 0) {
            return new Packed(kept, used);
        }
        Map<String, Passage> byPosition = new HashMap<>();
        for (Passage p : all) {
            byPosition.put(p.source + ":" + p.order, p);
        }
        Set<Passage> taken = new HashSet<>(kept);
        List<Passage> seeds = new ArrayList<>(kept);
        for (int ring = 1; ring <= rings; ring++) {
            for (Passage seed : seeds) {
                if (seed.relevance < 0.5 * bestRelevance) {
                    continue;
                }
                for (int d : new int[] {ring, -ring}) {
                    Passage nb = byPosition.get(seed.source + ":" + (seed.order + d));
                    if (nb == null || taken.contains(nb) || excluded.contains(nb) || kept.size() >= maxPassages
                            || nb.quality < NEIGHBOUR_QUALITY) {
                        continue;
                    }
                    int cost = tok.count(marker(sources, nb) + nb.text) + 1;
                    if (used + cost <= budget) {
                        nb.tokens = cost;
                        kept.add(nb);
                        taken.add(nb);
                        used += cost;
                    }
                }
            }
        }
        return new Packed(kept, used);
    }

    static String marker(List<RetrievedSource> sources, Passage p) {
        String id = sources.get(p.source).id();
        return id.isEmpty() ? "" : "[" + id + "] ";
    }

    /** The best passage did not fit: keep its first sentences up to the budget. */
    static Passage truncate(Passage p, String marker, int budget, TokenCounter tok) {
        String text = p.text;
        while (text.length() > 40) {
            int cut = Math.max(text.lastIndexOf(". ", text.length() - 2), text.lastIndexOf('。', text.length() - 2));
            text = cut > 40 ? text.substring(0, cut + 1) : text.substring(0, (int) (text.length() * 0.8));
            String closed = PassageSplitter.closeFences(text.strip());
            int cost = tok.count(marker + closed) + 1;
            if (cost <= budget) {
                Passage q = new Passage(p.source, p.order, closed);
                q.score = p.score;
                q.relevance = p.relevance;
                q.quality = p.quality;
                q.tokens = cost;
                return q;
            }
        }
        return null;
    }
}
