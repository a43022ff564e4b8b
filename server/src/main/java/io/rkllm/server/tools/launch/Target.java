package io.rkllm.server.tools.launch;

import java.util.Optional;

/**
 * The server an agent is pointed at: its base URL (without {@code /v1}), the API key it takes (none when the server
 * has no keys: clients that insist on one get a placeholder), the model, and the model's context in tokens.
 */
record Target(String baseUrl, Optional<String> apiKey, String model, int contextLength) {
    /** What a client sends as its key: the server's, or a placeholder the server ignores when it has none. */
    String keyOrPlaceholder() {
        return apiKey.orElse("rkllm-server");
    }
}
