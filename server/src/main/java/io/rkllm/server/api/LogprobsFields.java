package io.rkllm.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a request asks of its tokens' log probabilities: how many of the likeliest tokens to give beside each, or
 * nothing. OpenAI's chat and Ollama's APIs ask with {@code logprobs} (true or false) and {@code top_logprobs} (0 to
 * 20), which without {@code logprobs} OpenAI and llama-server refuse and Ollama ignores; the legacy completions
 * API asks with {@code logprobs} as a count, the Responses API with {@code include}.
 */
public final class LogprobsFields {
    /** Most alternatives a token may have beside it, as OpenAI and Ollama allow. */
    static final int MAX_TOP = 20;

    private LogprobsFields() {
    }

    /** OpenAI's chat {@code logprobs} and {@code top_logprobs}. */
    public static OptionalInt chat(FieldReader f) {
        boolean asked = f.bool("logprobs").orElse(false);
        Optional<Integer> top = f.integer("top_logprobs");
        if (top.isPresent() && !asked) {
            throw ApiException.invalid("top_logprobs", "'top_logprobs' requires 'logprobs': true");
        }
        return asked ? OptionalInt.of(count("top_logprobs", top.orElse(0))) : OptionalInt.empty();
    }

    /**
     * The Responses API's: {@code include} naming {@code message.output_text.logprobs} asks for them,
     * {@code top_logprobs} (0 to 20) says how many alternatives; {@code top_logprobs} alone asks for nothing, as at
     * OpenAI.
     */
    public static OptionalInt responses(FieldReader f) {
        Optional<Integer> top = f.integer("top_logprobs");
        boolean asked = false;
        for (JsonNode item : f.array("include").orElseGet(JsonNodeFactory.instance::arrayNode)) {
            asked |= item.isTextual() && item.asText().equals("message.output_text.logprobs");
        }
        int n = count("top_logprobs", top.orElse(0));
        return asked ? OptionalInt.of(n) : OptionalInt.empty();
    }

    /**
     * Ollama's {@code logprobs} and {@code top_logprobs}: as OpenAI's, but {@code top_logprobs} without
     * {@code logprobs} asks for nothing, as Ollama takes it (it checks the range only).
     */
    public static OptionalInt ollama(FieldReader f) {
        boolean asked = f.bool("logprobs").orElse(false);
        int top = count("top_logprobs", f.integer("top_logprobs").orElse(0));
        return asked ? OptionalInt.of(top) : OptionalInt.empty();
    }

    /** The legacy completions API's {@code logprobs}: how many alternatives, each token's own probability always. */
    public static OptionalInt completion(FieldReader f) {
        return f.integer("logprobs").map(n -> OptionalInt.of(count("logprobs", n))).orElse(OptionalInt.empty());
    }

    private static int count(String name, int n) {
        if (n < 0 || n > MAX_TOP) {
            throw ApiException.invalid(name, "'" + name + "' must be between 0 and " + MAX_TOP);
        }
        return n;
    }
}
