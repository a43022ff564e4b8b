package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaModel;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tokens of a dialect's markers that the vocabulary has as control tokens ({@code <|channel|>},
 * {@code [TOOL_CALLS]}, {@code <|tool_call>}): llama.cpp writes such a token as nothing unless asked, and the
 * pipeline's parser needs to see it. End-of-generation tokens are never among them: they end the answer.
 */
final class MarkerTokens {
    private final LlamaModel model;
    private final Map<String, OptionalInt> tokens = new ConcurrentHashMap<>();

    MarkerTokens(LlamaModel model) {
        this.model = model;
    }

    /** The control tokens among {@code markers}, each a marker that is one token of the vocabulary. */
    Set<Integer> tokens(List<String> markers) {
        if (markers.isEmpty()) {
            return Set.of();
        }
        Set<Integer> out = new HashSet<>();
        for (String marker : markers) {
            tokens.computeIfAbsent(marker, this::controlToken).ifPresent(out::add);
        }
        return out;
    }

    private OptionalInt controlToken(String marker) {
        int[] ids = model.tokenize(marker, false, true);
        if (ids.length != 1 || model.isEndOfGeneration(ids[0]) || !model.isControl(ids[0])) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(ids[0]);
    }
}
