package io.rkllm.server.http.openai;

import io.javalin.http.Context;
import io.rkllm.server.api.RerankRequestParser;
import io.rkllm.server.http.EmbeddingDriver;
import io.rkllm.server.pipeline.embedding.EmbeddingResult;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * {@code POST /v1/rerank} (and {@code /rerank}): a reranker's relevance score of each document for the query,
 * {@code {object: list, model, results: [{index, relevance_score, document?}], usage}}, best first, cut to
 * {@code top_n}: what llama-server answers and Open WebUI's external reranker reads.
 */
final class OpenAiRerank {
    private final EmbeddingDriver driver;
    private final RerankRequestParser parser;

    OpenAiRerank(EmbeddingDriver driver, RerankRequestParser parser) {
        this.driver = driver;
        this.parser = parser;
    }

    void handle(Context ctx) throws Exception {
        RerankRequestParser.Rerank request = parser.parse(ctx.bodyAsBytes());
        EmbeddingResult result = driver.embed(ctx, request.request(), "rerank");
        List<Integer> order = IntStream.range(0, result.vectors().size()).boxed()
                .sorted(Comparator.comparingDouble((Integer i) -> result.vectors().get(i)[0]).reversed())
                .limit(request.topN().orElse(Integer.MAX_VALUE)).toList();
        String model = request.request().model().isBlank() ? result.modelId() : request.request().model();
        driver.json(ctx, out -> {
            out.writeStartObject();
            out.writeStringField("object", "list");
            out.writeStringField("model", model);
            out.writeArrayFieldStart("results");
            for (int i : order) {
                out.writeStartObject();
                out.writeNumberField("index", i);
                out.writeNumberField("relevance_score", result.vectors().get(i)[0]);
                if (request.returnDocuments()) {
                    out.writeObjectFieldStart("document");
                    out.writeStringField("text", request.documents().get(i));
                    out.writeEndObject();
                }
                out.writeEndObject();
            }
            out.writeEndArray();
            out.writeObjectFieldStart("usage");
            out.writeNumberField("prompt_tokens", result.promptTokens());
            out.writeNumberField("total_tokens", result.promptTokens());
            out.writeEndObject();
            out.writeEndObject();
        });
    }
}
