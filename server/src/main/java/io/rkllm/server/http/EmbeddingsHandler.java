package io.rkllm.server.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.rkllm.server.api.EmbeddingRequestParser;
import io.rkllm.server.api.EmbeddingRequestParser.OllamaEmbed;
import io.rkllm.server.api.EmbeddingRequestParser.OpenAiEmbedding;
import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.metrics.Metrics;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.embedding.EmbeddingPipeline;
import io.rkllm.server.pipeline.embedding.EmbeddingRequest;
import io.rkllm.server.pipeline.embedding.EmbeddingResult;
import io.rkllm.server.pipeline.embedding.EmbeddingRun;
import io.rkllm.server.pipeline.embedding.PreparedEmbedding;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code POST /v1/embeddings} (OpenAI), {@code /api/embed} and {@code /api/embeddings} (Ollama): the texts go
 * through the embedding pipeline and the model's queue; the route's thread waits for the vectors, checking about
 * every second that its client is still there (a client that left takes its request out of the queue).
 */
final class EmbeddingsHandler {
    static final String TRUNCATED_HEADER = "X-RKLLM-Truncated";
    /** How long loading the model (and taking a place in its queue) took, for Ollama's load_duration. */
    private static final String LOAD_NANOS = "rkllm.load-nanos";

    private final EmbeddingPipeline pipeline;
    private final ModelService models;
    private final EmbeddingRequestParser parser;
    private final ObjectMapper mapper;
    private final Metrics metrics;

    EmbeddingsHandler(EmbeddingPipeline pipeline, ModelService models, EmbeddingRequestParser parser,
                      ObjectMapper mapper, Metrics metrics) {
        this.pipeline = pipeline;
        this.models = models;
        this.parser = parser;
        this.mapper = mapper;
        this.metrics = metrics;
    }

    /** OpenAI: {@code {object: list, data: [{object: embedding, index, embedding}], model, usage}}. */
    void openAi(Context ctx) throws Exception {
        OpenAiEmbedding request = parser.parseOpenAi(ctx.bodyAsBytes());
        EmbeddingResult result = embed(ctx, request.request(), "openai");
        String model = request.request().model().isBlank() ? result.modelId() : request.request().model();
        json(ctx, out -> {
            out.writeStartObject();
            out.writeStringField("object", "list");
            out.writeArrayFieldStart("data");
            for (int i = 0; i < result.vectors().size(); i++) {
                out.writeStartObject();
                out.writeStringField("object", "embedding");
                out.writeNumberField("index", i);
                out.writeFieldName("embedding");
                if (request.base64()) {
                    out.writeString(base64(result.vectors().get(i)));
                } else {
                    numbers(out, result.vectors().get(i));
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

    /** Ollama: {@code {model, embeddings: [[...]], total_duration, load_duration, prompt_eval_count}}. */
    void ollamaEmbed(Context ctx) throws Exception {
        long arrived = System.nanoTime();
        OllamaEmbed request = parser.parseOllamaEmbed(ctx.bodyAsBytes());
        Optional<Loaded> loadOnly = loadOnly(ctx, request);
        EmbeddingResult result = loadOnly.isPresent() ? null : embed(ctx, request.request(), "ollama");
        String model = request.request().model().isBlank()
                ? (result == null ? loadOnly.get().modelId() : result.modelId()) : request.request().model();
        long loadNanos = loadOnly.map(Loaded::nanos).orElse(0L);
        json(ctx, out -> {
            out.writeStartObject();
            out.writeStringField("model", model);
            out.writeArrayFieldStart("embeddings");
            if (result != null) {
                for (float[] vector : result.vectors()) {
                    numbers(out, vector);
                }
            }
            out.writeEndArray();
            out.writeNumberField("total_duration", System.nanoTime() - arrived);
            Long loading = ctx.attribute(LOAD_NANOS);
            out.writeNumberField("load_duration", result == null ? loadNanos : loading == null ? 0 : loading);
            out.writeNumberField("prompt_eval_count", result == null ? 0 : result.promptTokens());
            out.writeEndObject();
        });
    }

    /** Ollama's older route: {@code {embedding: [...]}}. */
    void ollamaEmbeddings(Context ctx) throws Exception {
        OllamaEmbed request = parser.parseOllamaEmbeddings(ctx.bodyAsBytes());
        Optional<Loaded> loadOnly = loadOnly(ctx, request);
        EmbeddingResult result = loadOnly.isPresent() ? null : embed(ctx, request.request(), "ollama");
        json(ctx, out -> {
            out.writeStartObject();
            out.writeFieldName("embedding");
            if (result == null) {
                out.writeStartArray();
                out.writeEndArray();
            } else {
                numbers(out, result.vectors().getFirst());
            }
            out.writeEndObject();
        });
    }

    /** What loading a model for a request without texts took. */
    private record Loaded(String modelId, long nanos) {
    }

    /** No texts: Ollama loads the model (as for a chat without messages) and answers with no vectors. */
    private Optional<Loaded> loadOnly(Context ctx, OllamaEmbed request) {
        if (!request.loadOnly()) {
            return Optional.empty();
        }
        ModelDescriptor model = models.forEmbedding(request.request().model());
        ctx.attribute(AccessLog.MODEL, model.id());
        long t0 = System.nanoTime();
        models.load(model);
        return Optional.of(new Loaded(model.id(), System.nanoTime() - t0));
    }

    private EmbeddingResult embed(Context ctx, EmbeddingRequest request, String api) throws InterruptedException {
        PreparedEmbedding prepared = pipeline.prepare(request);
        String model = prepared.model().id();
        ctx.attribute(AccessLog.MODEL, model);
        long queueing = System.nanoTime();
        try (EmbeddingRun run = pipeline.start(prepared)) {
            ctx.attribute(LOAD_NANOS, System.nanoTime() - queueing);
            ClientProbe client = new ClientProbe(ctx.req());
            while (true) {
                Optional<EmbeddingResult> result = run.next(RunDriver.PROBE_EVERY);
                if (result.isPresent()) {
                    EmbeddingResult r = result.get();
                    metrics.embeddings().finished(api, r);
                    ctx.attribute(AccessLog.DETAIL, String.format(Locale.ROOT,
                            "inputs=%d prompt=%d runtime_ms=%.0f queue_ms=%d truncated=%d", r.vectors().size(),
                            r.promptTokens(), r.runtimeMillis(), r.queueMillis(), r.truncated()));
                    if (r.truncated() > 0) {
                        ctx.header(TRUNCATED_HEADER, r.truncated() + " of " + r.vectors().size()
                                + " inputs cut to fit the model");
                    }
                    return r;
                }
                if (client.gone()) {
                    // nobody waits for these vectors: the request leaves the queue, or its run is aborted
                    run.cancel(CancelReason.CLIENT_GONE);
                    AccessLog.disconnected(ctx);
                    throw new FailureException(new Failure.Cancelled(CancelReason.CLIENT_GONE,
                            CancelReason.CLIENT_GONE.description()));
                }
            }
        } catch (FailureException e) {
            metrics.embeddings().failed(model, FailureStatus.of(e.failure()).code().orElse("error"));
            if (e.failure() instanceof Failure.Cancelled c) {
                metrics.aborts().cancelled(model, c.reason());
            }
            throw e;
        }
    }

    /** The vector as Base64 of its little-endian float32 values (what the OpenAI SDKs decode). */
    static String base64(float[] vector) {
        ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(vector);
        return Base64.getEncoder().encodeToString(bytes.array());
    }

    private static void numbers(JsonGenerator out, float[] vector) throws IOException {
        out.writeStartArray();
        for (float v : vector) {
            out.writeNumber(v);
        }
        out.writeEndArray();
    }

    @FunctionalInterface
    private interface Writer {
        void write(JsonGenerator out) throws IOException;
    }

    private void json(Context ctx, Writer body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator out = mapper.getFactory().createGenerator(bytes)) {
            body.write(out);
        }
        ctx.contentType("application/json").result(bytes.toByteArray());
    }
}
