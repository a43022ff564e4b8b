package io.rkllm.server.engine.contract;

import java.util.Objects;
import java.util.Optional;

/**
 * What the pipeline may know of a backend's runtime: its name, its ABI's label, whether sampling can change per run,
 * the sampling values it uses when nothing else is set, whether a load that runs out of memory takes the whole
 * process down (then {@code models.memory_check: auto} checks before every load), whether it takes min-p and a
 * seed (llama.cpp does, RKLLM does not), whether it picks each token itself (the same: llama.cpp's sampler chain
 * takes logit biases and can end a reasoning at its budget; RKLLM's runtime samples inside and does neither), its
 * release when it was identified (which model files a pull picks for it), and the form of the conversation it takes.
 *
 * @param name the runtime as a user knows it, in messages ("RKLLM runtime")
 * @param promptForm what the pipeline writes a conversation as for it: messages to render in a chat template, or
 *                   texts to send as turns
 */
public record RuntimeInfo(String name, String abi, boolean perRunSampling, Sampling defaultSampling,
                          boolean loadFailureIsFatal, boolean takesMinPAndSeed, boolean steersEachToken,
                          Optional<String> release, ChatPrompt.Form promptForm) {

    public RuntimeInfo {
        Objects.requireNonNull(release, "release");
        Objects.requireNonNull(promptForm, "promptForm");
    }

    /**
     * A runtime whose release is not known; one that takes min-p and a seed picks each token itself too (llama.cpp's
     * sampler chain does all of it, RKLLM's runtime none).
     */
    public RuntimeInfo(String name, String abi, boolean perRunSampling, Sampling defaultSampling,
                       boolean loadFailureIsFatal, boolean takesMinPAndSeed, ChatPrompt.Form promptForm) {
        this(name, abi, perRunSampling, defaultSampling, loadFailureIsFatal, takesMinPAndSeed, takesMinPAndSeed,
                Optional.empty(), promptForm);
    }
}
