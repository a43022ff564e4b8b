package io.rkllm.server.engine.contract;

import java.util.List;
import java.util.Objects;

/**
 * A generated token's log probability and the likeliest tokens at its place, from the model's distribution before
 * sampling (its logits' softmax: what OpenAI's and llama-server's {@code logprobs} give, whatever the temperature).
 *
 * @param token   the token's text; a piece of a character that spans tokens is U+FFFD here, {@code bytes} are exact
 * @param bytes   its UTF-8 bytes (shared: not to be changed)
 * @param logprob the natural logarithm of its probability
 * @param top     the likeliest tokens at this place, most likely first, as many as the request asked (0 to 20)
 */
public record TokenLogprob(String token, byte[] bytes, double logprob, List<Choice> top) {
    /** Most alternatives a request may ask for, as OpenAI and Ollama allow. */
    public static final int MAX_TOP = 20;

    public TokenLogprob {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(bytes, "bytes");
        top = List.copyOf(top);
    }

    /** One of the likeliest tokens at a place. */
    public record Choice(String token, byte[] bytes, double logprob) {
        public Choice {
            Objects.requireNonNull(token, "token");
            Objects.requireNonNull(bytes, "bytes");
        }
    }
}
