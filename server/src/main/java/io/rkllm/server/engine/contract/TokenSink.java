package io.rkllm.server.engine.contract;

/** Where a backend's run delivers its output, on the thread that runs the generation, in order. */
@FunctionalInterface
public interface TokenSink {

    /** Whole characters of output (never empty); {@code tokens} generated so far. */
    void text(String text, int tokens);
}
