package io.rkllm.server.engine.contract;

/**
 * What the pipeline may know of a backend's runtime: its name, its ABI's label, whether sampling can change per run,
 * the sampling values it uses when nothing else is set, whether a load that runs out of memory takes the whole
 * process down (then {@code models.memory_check: auto} checks before every load), and whether it takes min-p and a
 * seed (llama.cpp does, RKLLM does not).
 *
 * @param name the runtime as a user knows it, in messages ("RKLLM runtime")
 */
public record RuntimeInfo(String name, String abi, boolean perRunSampling, Sampling defaultSampling,
                          boolean loadFailureIsFatal, boolean takesMinPAndSeed) {

    /** A runtime without min-p and seed (RKLLM). */
    public RuntimeInfo(String name, String abi, boolean perRunSampling, Sampling defaultSampling,
                       boolean loadFailureIsFatal) {
        this(name, abi, perRunSampling, defaultSampling, loadFailureIsFatal, false);
    }
}
