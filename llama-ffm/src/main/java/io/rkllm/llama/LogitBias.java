package io.rkllm.llama;

/**
 * A number added to one token's logit before the chain samples ({@code llama_logit_bias}): negative makes the token
 * less likely, {@link Float#NEGATIVE_INFINITY} bans it.
 */
public record LogitBias(int token, float bias) {
    public LogitBias {
        if (token < 0 || Float.isNaN(bias)) {
            throw new IllegalArgumentException("token " + token + ", bias " + bias);
        }
    }
}
