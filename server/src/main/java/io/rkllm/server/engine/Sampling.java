package io.rkllm.server.engine;

/** Sampling settings of a run (per run on runtime 1.3, fixed when the model loads on 1.2). */
public record Sampling(int topK, double topP, double temperature, double repeatPenalty, double frequencyPenalty,
                       double presencePenalty) {
}
