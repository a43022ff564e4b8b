package io.rkllm.server.engine.contract;

import java.util.Objects;

/**
 * The three strings a chat template wraps a prompt in (RKLLM's {@code rkllm_set_chat_template}; a family's
 * template for any backend that takes one): the system block, and the text before and after the user's turn.
 */
public record PromptTemplate(String systemPrompt, String promptPrefix, String promptPostfix) {
    /** Nothing around the prompt: the text is read as it is. */
    public static final PromptTemplate NONE = new PromptTemplate("", "", "");

    public PromptTemplate {
        Objects.requireNonNull(systemPrompt, "systemPrompt");
        Objects.requireNonNull(promptPrefix, "promptPrefix");
        Objects.requireNonNull(promptPostfix, "promptPostfix");
    }
}
