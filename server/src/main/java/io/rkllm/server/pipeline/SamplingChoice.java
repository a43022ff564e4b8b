package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.engine.contract.TokenBias;
import io.rkllm.server.models.SamplingDefaults;
import io.rkllm.server.pipeline.request.LogitBiasEntry;
import io.rkllm.server.pipeline.request.SamplingOverrides;

/** A run's sampling: the request's values, else the model's (sidecar, family), else the runtime's defaults. */
final class SamplingChoice {
    private SamplingChoice() {
    }

    static Sampling of(Sampling runtime, SamplingDefaults model, SamplingOverrides request) {
        return new Sampling(
                request.topK().orElse(model.topK().orElse(runtime.topK())),
                request.topP().orElse(model.topP().orElse(runtime.topP())),
                request.temperature().orElse(model.temperature().orElse(runtime.temperature())),
                new Sampling.Penalties(
                        request.repeatPenalty().orElse(model.repeatPenalty().orElse(runtime.repeatPenalty())),
                        request.frequencyPenalty().orElse(model.frequencyPenalty().orElse(runtime.frequencyPenalty())),
                        request.presencePenalty().orElse(model.presencePenalty().orElse(runtime.presencePenalty())),
                        request.repeatLastN().orElse(runtime.penalties().lastN())),
                request.minP().orElse(runtime.minP()),
                request.typicalP().orElse(runtime.typicalP()),
                request.seed().isPresent() ? request.seed() : runtime.seed(),
                request.logitBias().stream().map(SamplingChoice::bias).toList());
    }

    /** A request's entry as the engine takes it ({@code false}, a ban, came as negative infinity). */
    private static TokenBias bias(LogitBiasEntry entry) {
        return new TokenBias(entry.token(), entry.text(), (float) entry.bias());
    }
}
