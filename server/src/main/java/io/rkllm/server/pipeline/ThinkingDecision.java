package io.rkllm.server.pipeline;

import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.Role;
import java.util.Optional;

/**
 * Whether a request runs with thinking: only for models that can think; off when the request says
 * so ({@code reasoning_effort} none/minimal, {@code chat_template_kwargs.enable_thinking}) or when
 * the last user message starts with {@code /no_think}, which is removed before the model sees it.
 */
public record ThinkingDecision(boolean enabled, Optional<String> strippedPrompt) {
    static final String NO_THINK = "/no_think";
    static final String THINK = "/think";

    public static ThinkingDecision decide(ModelDescriptor model, ChatRequest request, boolean serverDefault) {
        Optional<Boolean> wanted = request.thinking().on();
        Optional<String> stripped = Optional.empty();
        ChatMessage last = request.messages().getLast();
        if (last.role() == Role.USER) {
            String text = last.content().stripLeading();
            if (text.startsWith(NO_THINK)) {
                stripped = Optional.of(text.substring(NO_THINK.length()).stripLeading());
                wanted = Optional.of(false);
            } else if (text.startsWith(THINK) && !text.startsWith(THINK + "ing")) {
                stripped = Optional.of(text.substring(THINK.length()).stripLeading());
                wanted = wanted.isPresent() ? wanted : Optional.of(true);
            }
        }
        boolean enabled = model.capabilities().thinking() && wanted.orElse(serverDefault);
        return new ThinkingDecision(enabled, stripped);
    }
}
