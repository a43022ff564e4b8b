package io.rkllm.rag;

/** A piece of a source's text small enough to be selected on its own, with its scores. */
final class Passage {
    final int source;
    final int order;
    final String text;
    double quality;
    double relevance;
    double score;
    int tokens;

    Passage(int source, int order, String text) {
        this.source = source;
        this.order = order;
        this.text = text;
    }

    @Override
    public String toString() {
        return String.format("[%d.%d q%.2f r%.2f s%.2f] %s", source, order, quality, relevance, score,
                text.length() > 60 ? text.substring(0, 60) + "..." : text);
    }
}
