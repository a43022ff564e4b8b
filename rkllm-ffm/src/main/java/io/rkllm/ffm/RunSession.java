package io.rkllm.ffm;

import java.util.List;
import java.util.function.Consumer;

/**
 * The state of one run as the callback sees it: its UTF-8 decoder (or, in hidden-layer mode, the
 * rows copied), its sink and whether its terminal event was delivered. Confined to the thread that
 * called {@code rkllm_run}, on which the runtime calls back.
 */
final class RunSession {
    private final Consumer<TokenEvent> sink;
    private final RunControl control;
    private final boolean hiddenLayerMode;
    private final Utf8Accumulator utf8 = new Utf8Accumulator();
    private TokenEvent terminal;
    private boolean reabortIssued;
    private int tokens;
    private int embdSize;
    private List<float[]> hiddenRows;

    RunSession(Consumer<TokenEvent> sink, RunControl control) {
        this(sink, control, false);
    }

    private RunSession(Consumer<TokenEvent> sink, RunControl control, boolean hiddenLayerMode) {
        this.sink = sink;
        this.control = control;
        this.hiddenLayerMode = hiddenLayerMode;
    }

    /** A run in RKLLM_INFER_GET_LAST_HIDDEN_LAYER mode: it keeps the rows, and only the terminal event. */
    static RunSession forHiddenLayer(RunControl control) {
        return new RunSession(event -> { }, control, true);
    }

    boolean collectsHiddenLayer() {
        return hiddenLayerMode;
    }

    boolean hasHiddenLayer() {
        return hiddenRows != null;
    }

    void onHiddenLayer(int width, List<float[]> rows) {
        if (terminal == null && hiddenRows == null) {
            embdSize = width;
            hiddenRows = rows;
        }
    }

    /** The result of a hidden-layer run that finished with {@code perf}: its rows, or the lack of them. */
    HiddenLayer hiddenLayer(PerfStats perf) {
        return hiddenRows == null ? new HiddenLayer.Failed("the RKLLM runtime ended the run without hidden states")
                : new HiddenLayer.States(embdSize, hiddenRows, perf);
    }

    RunControl control() {
        return control;
    }

    void onBytes(byte[] bytes) {
        if (terminal != null || control.isAborted()) {
            return;
        }
        tokens++;
        if (bytes.length == 0) {
            // a token that prints nothing: a special token the runtime skips (skip_special_token), such as an
            // end-of-turn marker it did not stop at; the consumer still learns that a token went by
            sink.accept(new TokenEvent.Text("", tokens));
            return;
        }
        String text = utf8.feed(bytes);
        if (!text.isEmpty()) {
            sink.accept(new TokenEvent.Text(text, tokens));
        }
    }

    void onFinish(PerfStats perf) {
        if (terminal != null) {
            return;
        }
        boolean aborted = control.isAborted();
        if (!aborted) {
            String rest = utf8.finish();
            if (!rest.isEmpty()) {
                sink.accept(new TokenEvent.Text(rest, tokens));
            }
        }
        deliver(new TokenEvent.Finished(perf, aborted));
    }

    void onError(String message) {
        if (terminal == null) {
            deliver(new TokenEvent.Failed(message));
        }
    }

    /** An abort was requested but tokens still arrive (it raced the run's start): ask once more. */
    boolean needsReabort() {
        if (reabortIssued || terminal != null || !control.isAborted()) {
            return false;
        }
        reabortIssued = true;
        return true;
    }

    /**
     * A hidden-layer run that goes on after delivering its rows (a runtime generating tokens in that
     * mode): ask once to stop it, so it cannot run to the end of the context.
     */
    boolean needsStopAfterHiddenLayer() {
        if (reabortIssued || terminal != null || hiddenRows == null) {
            return false;
        }
        reabortIssued = true;
        return true;
    }

    /** After rkllm_run returned: guarantees exactly one terminal event. */
    TokenEvent complete(int returnCode) {
        if (terminal == null) {
            if (returnCode != 0) {
                onError("rkllm_run failed with code " + returnCode);
            } else {
                onFinish(PerfStats.NONE);
            }
        }
        return terminal;
    }

    private void deliver(TokenEvent event) {
        terminal = event;
        sink.accept(event);
    }
}
