package io.rkllm.server.engine.contract;

import java.util.Objects;
import java.util.Optional;

/**
 * What the pipeline may know of a backend's runtime: its name, its ABI's label, whether sampling can change per run,
 * the sampling values it uses when nothing else is set, whether a load that runs out of memory takes the whole
 * process down (then {@code models.memory_check: auto} checks before every load), whether it takes min-p and a
 * seed (llama.cpp does, RKLLM does not), and its release when it was identified (which model files a pull picks for
 * it).
 *
 * @param name the runtime as a user knows it, in messages ("RKLLM runtime")
 */
public record RuntimeInfo(String name, String abi, boolean perRunSampling, Sampling defaultSampling,
                          boolean loadFailureIsFatal, boolean takesMinPAndSeed, Optional<String> release) {

    public RuntimeInfo {
        Objects.requireNonNull(release, "release");
    }

    /** A runtime whose release is not known. */
    public RuntimeInfo(String name, String abi, boolean perRunSampling, Sampling defaultSampling,
                       boolean loadFailureIsFatal, boolean takesMinPAndSeed) {
        this(name, abi, perRunSampling, defaultSampling, loadFailureIsFatal, takesMinPAndSeed, Optional.empty());
    }

    /** A runtime without min-p and seed (RKLLM), its release not known. */
    public RuntimeInfo(String name, String abi, boolean perRunSampling, Sampling defaultSampling,
                       boolean loadFailureIsFatal) {
        this(name, abi, perRunSampling, defaultSampling, loadFailureIsFatal, false);
    }
}
