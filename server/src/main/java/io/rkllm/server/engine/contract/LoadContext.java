package io.rkllm.server.engine.contract;

import java.util.function.Supplier;

/**
 * What the engine gives a backend that loads a model: its load policy around each native load (the memory check,
 * the count of what is held, the log and the metrics), and the services the models of a registry share.
 */
public interface LoadContext {

    /**
     * One slot's native load (the first, or another when a conversation needs one): waits for the memory of models
     * being unloaded, checks that it fits (the engine's memory budget, {@code models.max_memory} for another slot), and
     * counts it as held until the model unloads. Thread-safe: a model that runs several generations at once
     * ({@link BackendModel#parallelGenerations()}) may load slots from its generation threads.
     *
     * @throws io.rkllm.server.domain.FailureException when the memory check refuses it (nothing is attempted)
     */
    <T> T loadSlot(Supplier<T> init);

    /** A vision model's image encoder, under the memory check like a slot; its failure fails the whole load. */
    <T> T loadEncoder(Supplier<T> init);

    /** Image embeddings by model and picture, shared by the registry's models. */
    ImageEmbeddingCache pictures();

    /** Where the model's image encoder runs are reported (metrics). */
    EncoderListener encoderListener();
}
