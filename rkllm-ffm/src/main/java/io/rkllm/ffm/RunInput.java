package io.rkllm.ffm;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code rkllm_run}: a text prompt (RKLLM_INPUT_PROMPT, generate mode) and its RKLLMInferParam.
 *
 * @param role "user" or "tool" (tool results after {@code rkllm_set_function_tools})
 * @param keepHistory keep this turn in the KV cache (1) or discard it afterwards (0)
 * @param sampling per-run sampling; ABI 1.3 only (empty = the values given at init)
 * @param maxNewTokens per-run limit; ABI 1.3 only (&lt;= 0 = the value given at init)
 * @param loraName a LoRA adapter loaded with {@link Model#loadLora}, if any
 * @param savePromptCache save the prompt's KV cache to this file (runtime prompt-cache feature)
 */
public record RunInput(String role, String prompt, boolean enableThinking, boolean keepHistory,
                       Optional<SamplingParams> sampling, int maxNewTokens, Optional<String> loraName,
                       Optional<Path> savePromptCache) {

    public RunInput {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(sampling, "sampling");
        Objects.requireNonNull(loraName, "loraName");
        Objects.requireNonNull(savePromptCache, "savePromptCache");
    }

    /** A user turn with the init-time sampling and limit. */
    public static RunInput user(String prompt, boolean keepHistory) {
        return new RunInput("user", prompt, false, keepHistory, Optional.empty(), 0, Optional.empty(),
                Optional.empty());
    }

    public RunInput withRole(String value) {
        return new RunInput(value, prompt, enableThinking, keepHistory, sampling, maxNewTokens, loraName,
                savePromptCache);
    }

    public RunInput withThinking(boolean value) {
        return new RunInput(role, prompt, value, keepHistory, sampling, maxNewTokens, loraName, savePromptCache);
    }

    public RunInput withSampling(SamplingParams value) {
        return new RunInput(role, prompt, enableThinking, keepHistory, Optional.of(value), maxNewTokens, loraName,
                savePromptCache);
    }

    public RunInput withMaxNewTokens(int value) {
        return new RunInput(role, prompt, enableThinking, keepHistory, sampling, value, loraName, savePromptCache);
    }

    public RunInput withLora(String name) {
        return new RunInput(role, prompt, enableThinking, keepHistory, sampling, maxNewTokens, Optional.of(name),
                savePromptCache);
    }

    public RunInput withSavePromptCache(Path path) {
        return new RunInput(role, prompt, enableThinking, keepHistory, sampling, maxNewTokens, loraName,
                Optional.of(path));
    }
}
