package io.rkllm.server.http.openai;

import io.javalin.http.Context;
import io.rkllm.server.api.EmbeddingRequestParser;
import io.rkllm.server.api.EmbeddingRequestParser.OpenAiEmbedding;
import io.rkllm.server.http.EmbeddingDriver;
import io.rkllm.server.pipeline.embedding.EmbeddingResult;

/** {@code POST /v1/embeddings}: {@code {object: list, data: [{object: embedding, index, embedding}], model, usage}}. */
final class OpenAiEmbeddings {
    private final EmbeddingDriver driver;
    private final EmbeddingRequestParser parser;

    OpenAiEmbeddings(EmbeddingDriver driver, EmbeddingRequestParser parser) {
        this.driver = driver;
        this.parser = parser;
    }

    void handle(Context ctx) throws Exception {
        OpenAiEmbedding request = parser.parseOpenAi(ctx.bodyAsBytes());
        EmbeddingResult result = driver.embed(ctx, request.request(), "openai");
        String model = request.request().model().isBlank() ? result.modelId() : request.request().model();
        driver.json(ctx, out -> {
            out.writeStartObject();
            out.writeStringField("object", "list");
            out.writeArrayFieldStart("data");
            for (int i = 0; i < result.vectors().size(); i++) {
                out.writeStartObject();
                out.writeStringField("object", "embedding");
                out.writeNumberField("index", i);
                out.writeFieldName("embedding");
                if (request.base64()) {
                    out.writeString(EmbeddingDriver.base64(result.vectors().get(i)));
                } else {
                    EmbeddingDriver.numbers(out, result.vectors().get(i));
                }
                out.writeEndObject();
            }
            out.writeEndArray();
            out.writeStringField("model", model);
            out.writeObjectFieldStart("usage");
            out.writeNumberField("prompt_tokens", result.promptTokens());
            out.writeNumberField("total_tokens", result.promptTokens());
            out.writeEndObject();
            out.writeEndObject();
        });
    }
}
