package io.rkllm.server.pipeline.request;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * One entry of a request's {@code logit_bias}: a token id of the model's vocabulary, or a text whose tokens are all
 * meant (llama-server's form), and what to add to their logits (negative infinity bans them).
 */
public record LogitBiasEntry(OptionalInt token, String text, double bias) {
    public LogitBiasEntry {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(text, "text");
        if (token.isPresent() == !text.isEmpty()) {
            throw new IllegalArgumentException("a token or a text, one of them");
        }
    }
}
