package io.rkllm.server.api;

/** Bounds on what one request may ask for. */
public record RequestLimits(int maxMessages, int maxTokensCeiling, int maxStopStrings, int maxStopLength,
                            int maxTools) {
    public static final RequestLimits DEFAULT = new RequestLimits(1024, 32768, 16, 256, 64);
}
