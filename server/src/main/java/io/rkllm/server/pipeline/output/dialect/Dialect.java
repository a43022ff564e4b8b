package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.Syntax;

/**
 * How one family of models writes its answers: its reasoning and its tool calls ({@link #syntax()}), and how its
 * chat template gives it away ({@link #writtenBy}), as llama.cpp chooses a parser from the template.
 */
public interface Dialect {

    /** Its name, as {@code model.yaml}'s {@code dialect} key and the docs' table name it. */
    String name();

    /** What the scanner looks for in its output. */
    Syntax syntax();

    /** Whether a chat template's source is one of this family's: it writes the family's markers. */
    boolean writtenBy(String template);

    /**
     * The family reasons before every answer, whatever it is asked (gpt-oss: only its effort changes), so a
     * request of such a model always runs with thinking on.
     */
    default boolean alwaysReasons() {
        return false;
    }

    /**
     * Whether a rendered generation prompt leaves the answer inside a reasoning block: it ends (whitespace aside)
     * with the opening marker of one (DeepSeek R1's {@code <think>\n}, Qwen3.5's with thinking on).
     */
    default boolean opensReasoning(String prompt) {
        String end = prompt.stripTrailing();
        return syntax().reasoning().stream().anyMatch(b -> end.endsWith(b.open()));
    }
}
