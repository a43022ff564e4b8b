package io.rkllm.tools.bench;

/**
 * One run's prefill and decode, however measured: the prompt tokens prefilled and the time until the first token
 * was sampled, then the tokens generated and the time from the first token to the last. Decode rates count the
 * tokens after the first ({@code generated - 1} steps over that time), the same way for the library, the server's
 * own timings and the client's clock.
 */
record Timing(int prefillTokens, double prefillMs, int generated, double decodeMs) {

    double prefillPerSecond() {
        return prefillMs <= 0 ? Double.NaN : prefillTokens * 1000 / prefillMs;
    }

    double decodePerSecond() {
        return generated < 2 || decodeMs <= 0 ? Double.NaN : (generated - 1) * 1000 / decodeMs;
    }
}
