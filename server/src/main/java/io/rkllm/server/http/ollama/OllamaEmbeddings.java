package io.rkllm.server.http.ollama;

import io.javalin.http.Context;
import io.rkllm.server.api.EmbeddingRequestParser;
import io.rkllm.server.api.EmbeddingRequestParser.OllamaEmbed;
import io.rkllm.server.http.EmbeddingDriver;
import io.rkllm.server.pipeline.embedding.EmbeddingResult;
import java.util.Optional;

/** Ollama's {@code POST /api/embed} and its older {@code /api/embeddings}. */
final class OllamaEmbeddings {
    private final EmbeddingDriver driver;
    private final EmbeddingRequestParser parser;

    OllamaEmbeddings(EmbeddingDriver driver, EmbeddingRequestParser parser) {
        this.driver = driver;
        this.parser = parser;
    }

    /** {@code {model, embeddings: [[...]], total_duration, load_duration, prompt_eval_count}}. */
    void embed(Context ctx) throws Exception {
        long arrived = System.nanoTime();
        OllamaEmbed request = parser.parseOllamaEmbed(ctx.bodyAsBytes());
        Optional<EmbeddingDriver.Loaded> loadOnly = loadOnly(ctx, request);
        EmbeddingResult result = loadOnly.isPresent() ? null : driver.embed(ctx, request.request(), "ollama");
        String model = request.request().model().isBlank()
                ? (result == null ? loadOnly.get().modelId() : result.modelId()) : request.request().model();
        long loadNanos = loadOnly.map(EmbeddingDriver.Loaded::nanos).orElse(0L);
        driver.json(ctx, out -> {
            out.writeStartObject();
            out.writeStringField("model", model);
            out.writeArrayFieldStart("embeddings");
            if (result != null) {
                for (float[] vector : result.vectors()) {
                    EmbeddingDriver.numbers(out, vector);
                }
            }
            out.writeEndArray();
            out.writeNumberField("total_duration", System.nanoTime() - arrived);
            out.writeNumberField("load_duration", result == null ? loadNanos : EmbeddingDriver.loadNanos(ctx));
            out.writeNumberField("prompt_eval_count", result == null ? 0 : result.promptTokens());
            out.writeEndObject();
        });
    }

    /** {@code {embedding: [...]}}. */
    void embeddings(Context ctx) throws Exception {
        OllamaEmbed request = parser.parseOllamaEmbeddings(ctx.bodyAsBytes());
        Optional<EmbeddingDriver.Loaded> loadOnly = loadOnly(ctx, request);
        EmbeddingResult result = loadOnly.isPresent() ? null : driver.embed(ctx, request.request(), "ollama");
        driver.json(ctx, out -> {
            out.writeStartObject();
            out.writeFieldName("embedding");
            if (result == null) {
                out.writeStartArray();
                out.writeEndArray();
            } else {
                EmbeddingDriver.numbers(out, result.vectors().getFirst());
            }
            out.writeEndObject();
        });
    }

    /** No texts: Ollama loads the model (as for a chat without messages) and answers with no vectors. */
    private Optional<EmbeddingDriver.Loaded> loadOnly(Context ctx, OllamaEmbed request) {
        return request.loadOnly() ? Optional.of(driver.load(ctx, request.request().model())) : Optional.empty();
    }
}
