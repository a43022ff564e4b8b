package io.rkllm.ffm;

import java.nio.file.Path;

/**
 * Everything {@code rkllm_init} takes in RKLLMParam. Start from {@link RkllmRuntime#defaultParams()}
 * (the library's own defaults) and change what you need.
 *
 * @param maxNewTokens generation limit per run; &lt;= 0 lets the runtime decide
 * @param nKeep KV entries kept at the start when the context window shifts (-1 = runtime default)
 * @param ignoreEosToken ABI 1.3 only; ignored on 1.2
 */
public record ModelParams(Path modelPath, int maxContextLen, int maxNewTokens, int nKeep, SamplingParams sampling,
                          boolean skipSpecialToken, boolean ignoreEosToken, ExtendParams extend) {

    public ModelParams withModelPath(Path value) {
        return new ModelParams(value, maxContextLen, maxNewTokens, nKeep, sampling, skipSpecialToken,
                ignoreEosToken, extend);
    }

    public ModelParams withMaxContextLen(int value) {
        return new ModelParams(modelPath, value, maxNewTokens, nKeep, sampling, skipSpecialToken, ignoreEosToken,
                extend);
    }

    public ModelParams withMaxNewTokens(int value) {
        return new ModelParams(modelPath, maxContextLen, value, nKeep, sampling, skipSpecialToken, ignoreEosToken,
                extend);
    }

    public ModelParams withNKeep(int value) {
        return new ModelParams(modelPath, maxContextLen, maxNewTokens, value, sampling, skipSpecialToken,
                ignoreEosToken, extend);
    }

    public ModelParams withSampling(SamplingParams value) {
        return new ModelParams(modelPath, maxContextLen, maxNewTokens, nKeep, value, skipSpecialToken,
                ignoreEosToken, extend);
    }

    public ModelParams withExtend(ExtendParams value) {
        return new ModelParams(modelPath, maxContextLen, maxNewTokens, nKeep, sampling, skipSpecialToken,
                ignoreEosToken, value);
    }
}
