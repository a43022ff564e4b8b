package io.rkllm.server.pipeline.request;

import java.time.Duration;

/**
 * When an editor's completion ends before its token limit, as llama-server's {@code n_indent} and
 * {@code t_max_predict_ms} end it: at a new line indented less than the code being completed (the rest of that line
 * left out), and at a new line once the answer has been written for longer than the time given. On a board a
 * completion of 128 tokens takes seconds; the editor wants the first lines at once.
 *
 * @param indent the least indentation a new line keeps (spaces and tabs), 0 for no such end
 * @param after the writing time after which a new line ends the answer, zero for no such end
 */
public record EditorStops(int indent, Duration after) {
    public static final EditorStops NONE = new EditorStops(0, Duration.ZERO);

    public EditorStops {
        if (indent < 0 || after.isNegative()) {
            throw new IllegalArgumentException("editor stops of " + indent + " and " + after);
        }
    }

    public boolean isNone() {
        return indent == 0 && after.isZero();
    }
}
