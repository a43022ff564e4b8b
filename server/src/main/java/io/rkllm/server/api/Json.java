package io.rkllm.server.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The one JSON mapper configuration of the wire layer. */
public final class Json {
    private Json() {
    }

    /**
     * Strict enough to refuse garbage, bounded so a hostile body cannot exhaust the stack or memory. Field names are
     * not canonicalised: interning them costs a body of a thousand long keys (a {@code logit_bias} of texts, say)
     * seconds of CPU, where reading them as plain strings takes a tenth of it, and request bodies share few names
     * worth keeping across requests. Without canonicalisation Jackson reads bytes through a decoder that replaces a
     * malformed sequence, so the body's UTF-8 is checked before ({@link CommonFields#object}), which also refuses
     * text after the value (a body cut and joined wrong is not read as half of itself).
     */
    public static ObjectMapper mapper() {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(64)
                        .maxStringLength(16 * 1024 * 1024)
                        .maxNumberLength(64)
                        .build())
                .configure(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES, false)
                .build();
        return new ObjectMapper(factory);
    }
}
