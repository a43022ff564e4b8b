package io.rkllm.ffm;

/**
 * RKLLMExtendParam: NPU memory domain, CPU affinity of the runtime's threads, batch slots.
 * {@code enabledCpusMask} 0xF0 with {@code enabledCpusNum} 4 pins the RK3588's four big cores.
 */
public record ExtendParams(int baseDomainId, boolean embedFlash, int enabledCpusNum, int enabledCpusMask,
                           int nBatch, boolean useCrossAttn) {
    public static final ExtendParams DEFAULT = new ExtendParams(0, false, 0, 0, 1, false);
}
