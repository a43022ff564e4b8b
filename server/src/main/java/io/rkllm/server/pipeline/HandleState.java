package io.rkllm.server.pipeline;

import java.util.Optional;

/**
 * What the pipeline knows about one model handle's runtime state: the chat template and tools
 * last set on it. Read and written only on that model's worker thread.
 */
public final class HandleState {
    private PromptFormat.RuntimeTemplate template;
    private String tools;

    Optional<PromptFormat.RuntimeTemplate> template() {
        return Optional.ofNullable(template);
    }

    void template(PromptFormat.RuntimeTemplate value) {
        template = value;
    }

    Optional<String> tools() {
        return Optional.ofNullable(tools);
    }

    void tools(String value) {
        tools = value;
    }
}
