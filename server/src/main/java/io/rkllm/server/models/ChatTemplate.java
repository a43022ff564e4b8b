package io.rkllm.server.models;

import java.util.Objects;

/**
 * A chat template override handed to the runtime ({@code rkllm_set_chat_template}). The three parts are
 * always sent together; a part the sidecar leaves out is the empty string.
 *
 * @param systemPrompt  the system block, e.g. {@code <|im_start|>system\nYou are ...<|im_end|>\n}
 * @param promptPrefix  text placed before each user prompt, e.g. {@code <|im_start|>user\n}
 * @param promptPostfix text placed after each user prompt, e.g. {@code <|im_end|>\n<|im_start|>assistant\n}
 */
public record ChatTemplate(String systemPrompt, String promptPrefix, String promptPostfix) {

    public ChatTemplate {
        Objects.requireNonNull(systemPrompt, "systemPrompt");
        Objects.requireNonNull(promptPrefix, "promptPrefix");
        Objects.requireNonNull(promptPostfix, "promptPostfix");
    }
}
