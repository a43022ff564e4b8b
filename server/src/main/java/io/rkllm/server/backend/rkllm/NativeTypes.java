package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.ExtendParams;
import io.rkllm.ffm.ImageInput;
import io.rkllm.ffm.ImageTags;
import io.rkllm.ffm.ModelParams;
import io.rkllm.ffm.PerfStats;
import io.rkllm.ffm.RunInput;
import io.rkllm.ffm.SamplingParams;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.models.VisionSpec;
import java.util.List;
import java.util.Optional;

/** Between the engine's records and the binding's: the one place that knows both. */
final class NativeTypes {
    private NativeTypes() {
    }

    static Sampling sampling(SamplingParams s) {
        return new Sampling(s.topK(), s.topP(), s.temperature(), s.repeatPenalty(), s.frequencyPenalty(),
                s.presencePenalty());
    }

    static SamplingParams samplingParams(SamplingParams base, Sampling s) {
        return base.withTopK(s.topK()).withTopP((float) s.topP()).withTemperature((float) s.temperature())
                .withRepeatPenalty((float) s.repeatPenalty()).withFrequencyPenalty((float) s.frequencyPenalty())
                .withPresencePenalty((float) s.presencePenalty());
    }

    static GenerationStats stats(PerfStats perf) {
        return new GenerationStats(perf.prefillTimeMs(), perf.prefillTokens(), perf.generateTimeMs(), perf.generateTokens());
    }

    /** {@code maxNewTokens} &gt; 0 limits this run (runtime 1.3 only; 1.2 counts and aborts). */
    static RunInput input(RunRequest request, SamplingParams base, int maxNewTokens) {
        Optional<SamplingParams> sampling = request.sampling().map(s -> samplingParams(base, s));
        return new RunInput(request.role(), request.prompt(), request.enableThinking(), request.keepHistory(),
                sampling, Math.max(0, maxNewTokens), Optional.empty(), Optional.empty());
    }

    /**
     * The init parameters of a model: the runtime's defaults with the model's file, context and sampling, and for a
     * vision model its image tags and memory domain.
     */
    static ModelParams params(ModelParams defaults, ModelLoad load) {
        ExtendParams extend = defaults.extend().nBatch() > 0 ? defaults.extend() : ExtendParams.DEFAULT;
        ModelParams params = defaults.withModelPath(load.file()).withMaxContextLen(load.contextLength())
                .withMaxNewTokens(load.contextLength()).withNKeep(-1)
                .withSampling(samplingParams(defaults.sampling(), load.sampling()));
        if (load.vision().isPresent()) {
            // the NPU memory domain the language model starts in beside its encoder (model.yaml's
            // vision.base_domain_id, else the vision profile's: Rockchip's demo uses 1)
            VisionSpec v = load.vision().get().spec();
            extend = new ExtendParams(v.baseDomainId(), extend.embedFlash(), extend.enabledCpusNum(),
                    extend.enabledCpusMask(), extend.nBatch(), extend.useCrossAttn());
            params = params.withImageTags(new ImageTags(v.imageStart(), v.imageEnd(), v.imageContent()));
        }
        return params.withExtend(extend);
    }

    /** The pictures of a multimodal run, with the model's own tags (given at init). */
    static ImageInput images(List<float[]> embeddings, EncoderInfo encoder) {
        return new ImageInput(embeddings, encoder.imageTokens(), encoder.width(), encoder.height(), Optional.empty());
    }
}
