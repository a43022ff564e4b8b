package io.rkllm.ffm;

/** The sampling settings of RKLLMParam (fixed at init) and of RKLLMSamplingParam (per run, ABI 1.3). */
public record SamplingParams(int topK, float topP, float temperature, float repeatPenalty, float frequencyPenalty,
                             float presencePenalty, int mirostat, float mirostatTau, float mirostatEta) {

    public SamplingParams withTopK(int value) {
        return new SamplingParams(value, topP, temperature, repeatPenalty, frequencyPenalty, presencePenalty,
                mirostat, mirostatTau, mirostatEta);
    }

    public SamplingParams withTopP(float value) {
        return new SamplingParams(topK, value, temperature, repeatPenalty, frequencyPenalty, presencePenalty,
                mirostat, mirostatTau, mirostatEta);
    }

    public SamplingParams withTemperature(float value) {
        return new SamplingParams(topK, topP, value, repeatPenalty, frequencyPenalty, presencePenalty,
                mirostat, mirostatTau, mirostatEta);
    }

    public SamplingParams withRepeatPenalty(float value) {
        return new SamplingParams(topK, topP, temperature, value, frequencyPenalty, presencePenalty,
                mirostat, mirostatTau, mirostatEta);
    }

    public SamplingParams withFrequencyPenalty(float value) {
        return new SamplingParams(topK, topP, temperature, repeatPenalty, value, presencePenalty,
                mirostat, mirostatTau, mirostatEta);
    }

    public SamplingParams withPresencePenalty(float value) {
        return new SamplingParams(topK, topP, temperature, repeatPenalty, frequencyPenalty, value,
                mirostat, mirostatTau, mirostatEta);
    }
}
