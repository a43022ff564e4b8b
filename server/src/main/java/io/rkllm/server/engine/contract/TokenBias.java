package io.rkllm.server.engine.contract;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * A number a request adds to a token's logit before sampling (OpenAI's {@code logit_bias}): a token of the model's
 * vocabulary by its id, or every token of a text as the model's tokenizer splits it (llama-server's form).
 *
 * @param token the token's id, or empty for {@code text}'s tokens
 * @param text  the text whose tokens are meant (empty with a token id)
 * @param bias  added to the logit: from -100 to 100, or negative infinity to ban the tokens
 */
public record TokenBias(OptionalInt token, String text, float bias) {
    public TokenBias {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(text, "text");
        if (token.isPresent() == !text.isEmpty()) {
            throw new IllegalArgumentException("a token or a text, one of them");
        }
    }
}
