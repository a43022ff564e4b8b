package io.rkllm.server.api;

import io.rkllm.server.config.ServerConfig;

/** Bounds on what one request may ask for ({@code limits.*} in the configuration). */
public record RequestLimits(int maxMessages, int maxTokensCeiling, int maxStopStrings, int maxStopLength,
                            int maxTools) {
    public static final RequestLimits DEFAULT = new RequestLimits(1024, 32768, 16, 256, 64);

    public static RequestLimits of(ServerConfig.Limits limits) {
        return new RequestLimits(limits.maxMessages(), limits.maxTokens(), limits.maxStop(), limits.maxStopLength(),
                limits.maxTools());
    }
}
