package io.rkllm.server.pipeline.embedding;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.Priority;
import io.rkllm.server.engine.Reservation;
import io.rkllm.server.models.EmbeddingSettings;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.TokenEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * From a request for vectors to a running embedding job: {@link #prepare} finds the embedding model (a chat
 * model is refused), checks the request against it and frames every text as the model was trained (see
 * docs/embeddings.md), cutting or refusing texts that are too long; {@link #start} loads the model and queues the
 * job. Every failure a client can cause is raised by {@code prepare}.
 */
public final class EmbeddingPipeline {
    /** Tokens the model's chat template adds around a text in template framing (Qwen's: about 20). */
    static final int TEMPLATE_TOKENS = 32;

    private final ModelService models;
    private final TokenEstimator estimator;
    private final ServerConfig.Embeddings config;
    private final ServerConfig.Timeouts timeouts;

    public EmbeddingPipeline(ModelService models, TokenEstimator estimator, ServerConfig config) {
        this.models = models;
        this.estimator = estimator;
        this.config = config.embeddings();
        this.timeouts = config.timeouts();
    }

    public PreparedEmbedding prepare(EmbeddingRequest request) {
        ModelDescriptor model = request.rankQuery().isPresent() ? models.forRerank(request.model())
                : models.forEmbedding(request.model());
        EmbeddingSettings settings = model.embedding().orElseThrow();
        if (request.inputs().size() > config.maxInputs()) {
            throw invalid("input", "at most " + config.maxInputs() + " inputs per request (embeddings.max_inputs), got "
                    + request.inputs().size());
        }
        OptionalInt dimensions = dimensions(request, model, settings);
        int limit = settings.inputLimit(model.contextLength());
        int overhead = settings.framing() == EmbeddingSettings.Framing.TEMPLATE ? TEMPLATE_TOKENS : 0;
        boolean rerank = request.rankQuery().isPresent();
        String prefix = rerank ? "" : switch (request.inputType()) {
            case QUERY -> settings.queryPrefix();
            case DOCUMENT -> settings.documentPrefix();
            case UNMARKED -> "";
        };
        String suffix = !rerank && settings.framing() == EmbeddingSettings.Framing.RAW ? settings.endOfText() : "";
        if (rerank) {
            // the query is read with every document: its tokens count against each one's room
            overhead += estimator.estimate(model.id(), request.rankQuery().get()) + 4;
            if (overhead >= limit) {
                throw new FailureException(new Failure.InvalidRequest("query", "context_length_exceeded",
                        "The query is about " + overhead + " tokens with its markers, and the model '" + model.id()
                                + "' reads at most " + limit + " of query and document together. Shorten it."));
            }
        }
        List<String> prompts = new ArrayList<>(request.inputs().size());
        int truncated = 0;
        for (int i = 0; i < request.inputs().size(); i++) {
            // the runtime takes C strings: a NUL would end the prompt there, losing the text and the end-of-text
            // marker after it (a prompt of nothing has no hidden states at all)
            String text = request.inputs().get(i).replace("\0", "");
            String prompt = prefix + text + suffix;
            if (prompt.isEmpty()) {
                throw invalid("input", "input " + i + " is empty (the model has no end-of-text marker to embed)");
            }
            int tokens = estimator.estimate(model.id(), prompt) + overhead;
            if (tokens > limit) {
                if (!request.truncate()) {
                    throw new FailureException(new Failure.InvalidRequest("input", "context_length_exceeded",
                            "Input " + i + " is about " + tokens + " tokens, more than the " + limit + " the model '"
                                    + model.id() + "' takes. Shorten it, or send \"truncate\": true to cut it."));
                }
                prompt = prefix + cut(model, prefix, text, suffix, limit - overhead - margin(limit)) + suffix;
                truncated++;
            }
            prompts.add(prompt);
        }
        return new PreparedEmbedding(request, model, prompts, dimensions, truncated);
    }

    /** Loads the model if needed, queues the job and returns its handle. */
    public EmbeddingRun start(PreparedEmbedding prepared) {
        Reservation place = models.reserve(prepared.model(), Priority.BACKGROUND);
        return new EmbeddingRun(prepared, place.submit(new FramedWork(prepared)), estimator, config.waitTimeout(),
                timeouts.total(), timeouts.firstToken());
    }

    private static OptionalInt dimensions(EmbeddingRequest request, ModelDescriptor model, EmbeddingSettings s) {
        if (request.dimensions().isEmpty()) {
            return OptionalInt.empty();
        }
        int wanted = request.dimensions().getAsInt();
        if (wanted < 1) {
            throw invalid("dimensions", "'dimensions' must be at least 1, got " + wanted);
        }
        if (s.dimensions() > 0 && wanted >= s.dimensions()) {
            if (wanted > s.dimensions()) {
                throw invalid("dimensions", "the model '" + model.id() + "' makes vectors of " + s.dimensions()
                        + " dimensions; 'dimensions' cannot be " + wanted);
            }
            return OptionalInt.empty();
        }
        if (!s.matryoshka()) {
            throw invalid("dimensions", "the model '" + model.id() + "' was not trained for shortened vectors: "
                    + "'dimensions' is not supported (set embedding.matryoshka in its model.yaml if it was)");
        }
        return OptionalInt.of(wanted);
    }

    /** Room left for the estimate's error when a text is cut to the limit. */
    private static int margin(int limit) {
        return Math.max(8, limit / 32);
    }

    /** The longest start of {@code text} whose framed prompt is estimated at {@code budget} tokens or fewer. */
    private String cut(ModelDescriptor model, String prefix, String text, String suffix, int budget) {
        int[] codePoints = text.codePoints().toArray();
        int low = 0;
        int high = codePoints.length;
        while (low < high) {
            int mid = (low + high + 1) >>> 1;
            String candidate = prefix + new String(codePoints, 0, mid) + suffix;
            if (estimator.estimate(model.id(), candidate) <= budget) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return new String(codePoints, 0, low);
    }

    private static FailureException invalid(String param, String message) {
        return new FailureException(Failure.InvalidRequest.of(param, message));
    }
}
