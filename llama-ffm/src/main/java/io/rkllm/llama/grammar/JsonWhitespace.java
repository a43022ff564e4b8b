package io.rkllm.llama.grammar;

/** The whitespace allowed between JSON tokens (and after the value). */
public enum JsonWhitespace {
    /**
     * None, one space, or one newline and up to 20 spaces or tabs of indentation: pretty-printed JSON as models
     * learnt it (llama.cpp's rule), and bounded, so that a model cannot fill its answer with whitespace.
     */
    INDENTED("| \" \" | \"\\n\" [ \\t]{0,20}"),
    /** At most one space: the shortest answers, on one line. */
    COMPACT("\" \"?");

    private final String rule;

    JsonWhitespace(String rule) {
        this.rule = rule;
    }

    String rule() {
        return rule;
    }
}
