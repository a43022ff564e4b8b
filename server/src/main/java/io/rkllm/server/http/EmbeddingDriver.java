package io.rkllm.server.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
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
 * What OpenAI's and Ollama's embedding routes share: the texts go through the embedding pipeline and the model's
 * queue; the route's thread waits for the vectors, checking about every second that its client is still there (a
 * client that left takes its request out of the queue). Each family writes the vectors in its own shape.
 */
public final class EmbeddingDriver {
    public static final String TRUNCATED_HEADER = "X-RKLLM-Truncated";
    /** How long loading the model (and taking a place in its queue) took, for Ollama's load_duration. */
    private static final String LOAD_NANOS = "rkllm.load-nanos";

    private final EmbeddingPipeline pipeline;
    private final ModelService models;
    private final ObjectMapper mapper;
    private final Metrics metrics;

    public EmbeddingDriver(EmbeddingPipeline pipeline, ModelService models, ObjectMapper mapper, Metrics metrics) {
        this.pipeline = pipeline;
        this.models = models;
        this.mapper = mapper;
        this.metrics = metrics;
    }

    /** What loading a model for a request without texts took. */
    public record Loaded(String modelId, long nanos) {
    }

    /** No texts: Ollama loads the model (as for a chat without messages) and answers with no vectors. */
    public Loaded load(Context ctx, String requestedModel) {
        ModelDescriptor model = models.forEmbedding(requestedModel);
        ctx.attribute(AccessLog.MODEL, model.id());
        long t0 = System.nanoTime();
        models.load(model);
        return new Loaded(model.id(), System.nanoTime() - t0);
    }

    /** What loading the model and queueing took for the request's {@link #embed} (0 before it). */
    public static long loadNanos(Context ctx) {
        Long loading = ctx.attribute(LOAD_NANOS);
        return loading == null ? 0 : loading;
    }

    /** The vectors of {@code request}'s texts; {@code api} names the family for the metrics. */
    public EmbeddingResult embed(Context ctx, EmbeddingRequest request, String api) throws InterruptedException {
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
    public static String base64(float[] vector) {
        ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(vector);
        return Base64.getEncoder().encodeToString(bytes.array());
    }

    public static void numbers(JsonGenerator out, float[] vector) throws IOException {
        out.writeStartArray();
        for (float v : vector) {
            out.writeNumber(v);
        }
        out.writeEndArray();
    }

    @FunctionalInterface
    public interface Writer {
        void write(JsonGenerator out) throws IOException;
    }

    public void json(Context ctx, Writer body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator out = mapper.getFactory().createGenerator(bytes)) {
            body.write(out);
        }
        ctx.contentType("application/json").result(bytes.toByteArray());
    }
}
