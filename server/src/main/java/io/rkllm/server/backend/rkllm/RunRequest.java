package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.PromptImage;
import io.rkllm.server.engine.contract.Sampling;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code rkllm_run} as the cache policy decides it: the text to prefill and how.
 *
 * @param role "user", or "tool" for tool results after function tools were set
 * @param enableThinking the runtime's {@code enable_thinking} ({@link ThinkingControl})
 * @param keepHistory append this turn to the KV cache (true) or drop it afterwards (false)
 * @param sampling this run's sampling (runtime 1.3); empty for the values given when the model loaded
 * @param images the pictures of the prompt's {@code <image>} placeholders, in order (a multimodal run); empty
 *               for text
 */
public record RunRequest(String role, String prompt, boolean enableThinking, boolean keepHistory,
                         Optional<Sampling> sampling, List<PromptImage> images) {

    public RunRequest {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(sampling, "sampling");
        images = List.copyOf(images);
    }
}
