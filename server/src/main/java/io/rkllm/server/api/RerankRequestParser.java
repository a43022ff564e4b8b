package io.rkllm.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.embedding.EmbeddingRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The body of {@code POST /v1/rerank} in the shape llama-server, Jina and Open WebUI's external reranker use:
 * {@code {model, query, documents, top_n?, return_documents?}}; a document is a string or {@code {text}}.
 */
public final class RerankRequestParser {
    private final CommonFields base;

    public RerankRequestParser(CommonFields base) {
        this.base = base;
    }

    /**
     * A rerank request: the documents to score, how many results to return (all when empty), and whether their text
     * goes back with them.
     */
    public record Rerank(EmbeddingRequest request, OptionalInt topN, boolean returnDocuments) {
        public List<String> documents() {
            return request.inputs();
        }
    }

    public Rerank parse(byte[] body) {
        ObjectNode node = base.object(body);
        FieldReader f = new FieldReader(node);
        String query = f.string("query").orElseThrow(() -> ApiException.invalid("query",
                "'query' is required: the text the documents are scored against"));
        ArrayNode array = f.array("documents").orElseThrow(() -> ApiException.invalid("documents",
                "'documents' is required: an array of strings (or of {\"text\": ...})"));
        if (array.isEmpty()) {
            throw ApiException.invalid("documents", "'documents' is empty");
        }
        List<String> documents = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            JsonNode d = array.get(i);
            if (d.isTextual()) {
                documents.add(d.asText());
            } else if (d.isObject() && d.path("text").isTextual()) {
                documents.add(d.get("text").asText());
            } else {
                throw ApiException.invalid("documents", "documents[" + i + "] must be a string or {\"text\": ...}");
            }
        }
        OptionalInt topN = f.integer("top_n").map(OptionalInt::of).orElse(OptionalInt.empty());
        if (topN.isPresent() && topN.getAsInt() < 1) {
            throw ApiException.invalid("top_n", "'top_n' must be at least 1");
        }
        return new Rerank(EmbeddingRequest.rerank(base.model(f), query, documents), topN,
                f.bool("return_documents").orElse(false));
    }
}
