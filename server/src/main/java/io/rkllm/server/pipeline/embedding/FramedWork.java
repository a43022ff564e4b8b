package io.rkllm.server.pipeline.embedding;

import io.rkllm.server.engine.EmbeddingWork;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.models.EmbeddingSettings;
import io.rkllm.server.models.ModelDescriptor;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A prepared request as the engine runs it: the model gets the chat template the framing needs and an empty
 * KV cache, then each prompt's rows are pooled, shortened and normalised on the worker thread.
 */
final class FramedWork implements EmbeddingWork {
    private final ModelDescriptor model;
    private final EmbeddingSettings settings;
    private final List<String> prompts;
    private final OptionalInt dimensions;
    private final Optional<String> rankQuery;

    FramedWork(PreparedEmbedding prepared) {
        this.model = prepared.model();
        this.settings = prepared.model().embedding().orElseThrow();
        this.prompts = prepared.prompts();
        this.dimensions = prepared.dimensions();
        this.rankQuery = prepared.request().rankQuery();
    }

    @Override
    public Optional<String> rankQuery() {
        return rankQuery;
    }

    @Override
    public Optional<PromptTemplate> template() {
        if (settings.framing() == EmbeddingSettings.Framing.RAW) {
            // the text alone: no system block, no turn markers around it
            return Optional.of(new PromptTemplate("", "", ""));
        }
        return model.chatTemplate().map(t -> new PromptTemplate(t.systemPrompt().replace("{system}", ""),
                t.promptPrefix(), t.promptPostfix()));
    }

    @Override
    public List<String> prompts() {
        return prompts;
    }

    @Override
    public float[] pool(int width, List<float[]> rows) {
        if (rankQuery.isPresent()) {
            return rows.getLast().clone(); // a score: nothing to pool or normalise
        }
        float[] vector = Vectors.pool(settings.pooling(), rows);
        if (dimensions.isPresent()) {
            return Vectors.normalize(Vectors.shorten(vector, dimensions.getAsInt()));
        }
        return settings.normalize() ? Vectors.normalize(vector) : vector;
    }
}
