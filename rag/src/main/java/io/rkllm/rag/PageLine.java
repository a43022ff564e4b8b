package io.rkllm.rag;

/** One logical line of a web page's text with its features and its classification by the cleaner. */
final class PageLine {

    /** Classification of a line: kept (GOOD), prose not strong enough alone, short, or dropped. */
    enum Kind { GOOD, NEAR_GOOD, SHORT, BAD }

    final String text;
    final int paragraph;
    final int length;
    final int words;
    final double density;
    final boolean sentence;
    Kind kind;
    Kind initial;
    boolean data;
    boolean repeated;
    boolean nearRepeat;
    boolean boiler;
    boolean nav;
    /** Markup residue: dropped, but no sign of boilerplate around it. */
    boolean junk;
    /** Part of a code block ({@link CodeBlocks}); {@code block} numbers the blocks from 1. */
    boolean code;
    int block;
    /** Leading spaces of the line in the page's text (a tab counts 4): kept inside code blocks. */
    final int indent;

    PageLine(String text, int paragraph) {
        this(text, paragraph, 0);
    }

    PageLine(String text, int paragraph, int indent) {
        this.text = text;
        this.paragraph = paragraph;
        this.indent = indent;
        this.length = Scripts.effectiveLength(text);
        this.words = Scripts.countWords(text);
        this.sentence = SentenceMeasures.hasSentencePunctuation(text);
        // function words of a known language, or the shape of prose in any other
        this.density = Math.max(FunctionWords.density(text), SentenceMeasures.structuralDensity(text, words, sentence));
    }

    @Override
    public String toString() {
        return kind + "/" + initial + " " + text;
    }
}
