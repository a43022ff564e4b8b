package io.rkllm.ffm;

/** What a run delivers, in order: text pieces, then exactly one {@link Finished} or {@link Failed}. */
public sealed interface TokenEvent {

    /**
     * Decoded text, always whole UTF-8 characters (a character split across callbacks arrives whole). Empty for a
     * token whose callback carried no bytes at all: a special token the runtime does not print
     * ({@code skip_special_token}); a token that ends inside a character delivers nothing until the character is
     * complete.
     *
     * @param tokens tokens generated so far in this run, this piece's included (one per callback)
     */
    record Text(String text, int tokens) implements TokenEvent {
    }

    /** The run ended normally, by reaching its limit, or by abort; {@code aborted} says which. */
    record Finished(PerfStats perf, boolean aborted) implements TokenEvent {
    }

    /** The run failed (RKLLM_RUN_ERROR or a non-zero return from rkllm_run). */
    record Failed(String message) implements TokenEvent {
    }
}
