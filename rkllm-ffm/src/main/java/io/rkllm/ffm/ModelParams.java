package io.rkllm.ffm;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything {@code rkllm_init} takes in RKLLMParam. Start from {@link RkllmRuntime#defaultParams()}
 * (the library's own defaults) and change what you need.
 *
 * @param maxNewTokens generation limit per run; &lt;= 0 lets the runtime decide
 * @param nKeep KV entries kept at the start when the context window shifts (-1 = runtime default)
 * @param ignoreEosToken ABI 1.3 only; ignored on 1.2
 * @param imageTags the tags of a vision-language model's images: written to {@code RKLLMParam.img_*} on
 *                  ABI 1.2, sent with every multimodal run on ABI 1.3 (unless the run has its own)
 */
public record ModelParams(Path modelPath, int maxContextLen, int maxNewTokens, int nKeep, SamplingParams sampling,
                          boolean skipSpecialToken, boolean ignoreEosToken, ExtendParams extend,
                          Optional<ImageTags> imageTags) {

    public ModelParams {
        Objects.requireNonNull(imageTags, "imageTags");
    }

    public ModelParams withModelPath(Path value) {
        return new ModelParams(value, maxContextLen, maxNewTokens, nKeep, sampling, skipSpecialToken,
                ignoreEosToken, extend, imageTags);
    }

    public ModelParams withMaxContextLen(int value) {
        return new ModelParams(modelPath, value, maxNewTokens, nKeep, sampling, skipSpecialToken, ignoreEosToken,
                extend, imageTags);
    }

    public ModelParams withMaxNewTokens(int value) {
        return new ModelParams(modelPath, maxContextLen, value, nKeep, sampling, skipSpecialToken, ignoreEosToken,
                extend, imageTags);
    }

    public ModelParams withNKeep(int value) {
        return new ModelParams(modelPath, maxContextLen, maxNewTokens, value, sampling, skipSpecialToken,
                ignoreEosToken, extend, imageTags);
    }

    public ModelParams withSampling(SamplingParams value) {
        return new ModelParams(modelPath, maxContextLen, maxNewTokens, nKeep, value, skipSpecialToken,
                ignoreEosToken, extend, imageTags);
    }

    public ModelParams withExtend(ExtendParams value) {
        return new ModelParams(modelPath, maxContextLen, maxNewTokens, nKeep, sampling, skipSpecialToken,
                ignoreEosToken, value, imageTags);
    }

    public ModelParams withImageTags(ImageTags value) {
        return new ModelParams(modelPath, maxContextLen, maxNewTokens, nKeep, sampling, skipSpecialToken,
                ignoreEosToken, extend, Optional.of(value));
    }
}
