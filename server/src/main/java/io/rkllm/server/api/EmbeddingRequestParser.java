package io.rkllm.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.embedding.EmbeddingRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The bodies of {@code POST /v1/embeddings} (OpenAI), {@code /api/embed} and {@code /api/embeddings} (Ollama) as
 * {@link EmbeddingRequest}s. Unknown fields are ignored ({@code user}, {@code options}, {@code keep_alive});
 * the fields used are checked strictly.
 */
public final class EmbeddingRequestParser {
    private final CommonFields base;

    public EmbeddingRequestParser(CommonFields base) {
        this.base = base;
    }

    /** An OpenAI request, and whether the vectors go back as base64 (little-endian float32) or as numbers. */
    public record OpenAiEmbedding(EmbeddingRequest request, boolean base64) {
    }

    /** Ollama's {@code /api/embed}: no {@code input} means "load the model" (empty list). */
    public record OllamaEmbed(EmbeddingRequest request, boolean loadOnly) {
    }

    /**
     * {@code {model, input, encoding_format?, dimensions?, user?}}, plus {@code input_type} (query or document:
     * the model's own prefix goes before the texts) and {@code truncate} (cut long texts instead of a 400).
     */
    public OpenAiEmbedding parseOpenAi(byte[] body) {
        ObjectNode node = base.object(body);
        FieldReader f = new FieldReader(node);
        JsonNode input = f.raw("input").orElseThrow(() -> ApiException.invalid("input",
                "'input' is required: a string or an array of strings"));
        List<String> inputs = texts(input);
        if (inputs.isEmpty()) {
            throw ApiException.invalid("input", "'input' must not be an empty array");
        }
        String format = f.string("encoding_format").orElse("float").toLowerCase(Locale.ROOT);
        if (!format.equals("float") && !format.equals("base64")) {
            throw ApiException.invalid("encoding_format", "'encoding_format' must be float or base64, got '"
                    + format + "'");
        }
        return new OpenAiEmbedding(request(f, inputs, false), format.equals("base64"));
    }

    /** {@code {model, input?, truncate? (default true), dimensions?, input_type?}}. */
    public OllamaEmbed parseOllamaEmbed(byte[] body) {
        FieldReader f = new FieldReader(base.object(body));
        Optional<JsonNode> input = f.raw("input");
        List<String> inputs = input.map(EmbeddingRequestParser::texts).orElse(List.of());
        return new OllamaEmbed(request(f, inputs, true), inputs.isEmpty());
    }

    /** The older {@code {model, prompt}}: one text; none means "load the model". */
    public OllamaEmbed parseOllamaEmbeddings(byte[] body) {
        FieldReader f = new FieldReader(base.object(body));
        String prompt = f.string("prompt").orElse("");
        List<String> inputs = prompt.isEmpty() ? List.of() : List.of(prompt);
        return new OllamaEmbed(request(f, inputs, true), inputs.isEmpty());
    }

    private EmbeddingRequest request(FieldReader f, List<String> inputs, boolean truncateByDefault) {
        OptionalInt dimensions = f.integer("dimensions").map(OptionalInt::of).orElse(OptionalInt.empty());
        boolean truncate = f.bool("truncate").orElse(truncateByDefault);
        return new EmbeddingRequest(base.model(f), inputs, inputType(f), dimensions, truncate);
    }

    private static EmbeddingRequest.InputType inputType(FieldReader f) {
        Optional<String> value = f.string("input_type");
        if (value.isEmpty()) {
            return EmbeddingRequest.InputType.UNMARKED;
        }
        return switch (value.get().strip().toLowerCase(Locale.ROOT)) {
            case "query", "search_query", "retrieval.query" -> EmbeddingRequest.InputType.QUERY;
            case "document", "search_document", "passage", "retrieval.passage" -> EmbeddingRequest.InputType.DOCUMENT;
            default -> throw ApiException.invalid("input_type", "'input_type' must be query or document, got '"
                    + value.get() + "'");
        };
    }

    /** A string, or an array of strings; token arrays are refused with the reason. */
    private static List<String> texts(JsonNode input) {
        if (input.isTextual()) {
            return List.of(input.asText());
        }
        if (!input.isArray()) {
            throw ApiException.invalid("input", "'input' must be a string or an array of strings");
        }
        List<String> out = new ArrayList<>(input.size());
        for (int i = 0; i < input.size(); i++) {
            JsonNode item = input.get(i);
            if (item.isTextual()) {
                out.add(item.asText());
            } else if (item.isIntegralNumber() || item.isArray()) {
                throw ApiException.invalidCode("unsupported_input", "input", "token arrays are not supported: "
                        + "clients make them with an OpenAI tokenizer (tiktoken), whose ids mean nothing to this "
                        + "model, and the runtime takes text; send the texts (LangChain: OpenAIEmbeddings("
                        + "check_embedding_ctx_length=False))");
            } else {
                throw ApiException.invalid("input", "'input[" + i + "]' must be a string");
            }
        }
        return out;
    }
}
