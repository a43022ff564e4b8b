package io.rkllm.server.pipeline.output;

import java.util.List;
import java.util.Objects;

/**
 * A token of the answer with its log probability and the likeliest tokens at its place (each of those with no
 * alternatives of its own), as the APIs' {@code logprobs} give them.
 *
 * @param token   its text; a piece of a character that spans tokens is U+FFFD here, {@code bytes} are exact
 * @param bytes   its UTF-8 bytes (shared: not to be changed)
 * @param logprob the natural logarithm of its probability
 * @param top     the likeliest tokens at its place, most likely first
 */
public record TokenProbability(String token, byte[] bytes, double logprob, List<TokenProbability> top) {
    public TokenProbability {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(bytes, "bytes");
        top = List.copyOf(top);
    }
}
