package io.rkllm.ffm;

import java.util.List;

/** What a run in {@code RKLLM_INFER_GET_LAST_HIDDEN_LAYER} mode ({@link Model#lastHiddenLayer}) gave. */
public sealed interface HiddenLayer {

    /**
     * The last hidden layer: one row of {@code embdSize} floats per token the runtime processed in this
     * run, in input order (the chat template's tokens included when the prompt went through it). Which
     * row or rows make an embedding (last token, mean) is the caller's choice.
     */
    record States(int embdSize, List<float[]> rows, PerfStats perf) implements HiddenLayer {
        public States {
            rows = List.copyOf(rows);
        }

        public float[] lastRow() {
            return rows.getLast();
        }
    }

    /** The run was aborted through its {@link RunControl}. */
    record Aborted(PerfStats perf) implements HiddenLayer {
    }

    /** The run failed, or ended without returning hidden states. */
    record Failed(String message) implements HiddenLayer {
    }
}
