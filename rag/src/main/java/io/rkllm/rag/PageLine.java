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

    PageLine(String text, int paragraph) {
        this.text = text;
        this.paragraph = paragraph;
        this.length = Scripts.effectiveLength(text);
        this.words = Scripts.countWords(text);
        this.density = FunctionWords.density(text);
        this.sentence = PageLines.hasSentencePunctuation(text);
    }

    @Override
    public String toString() {
        return kind + "/" + initial + " " + text;
    }
}
