package io.rkllm.server.pipeline;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A request's messages as the model should see them: the leading system messages joined into the system
 * prompt (or the model's default one), earlier turns normalised as the cache remembers them (think blocks and
 * Open WebUI's reasoning details out of assistant text), and the trailing user, tool or later system messages as
 * new. A system message after the first turn stays at its place (it does not change the system prompt, whose cache
 * would be lost with it).
 */
final class ConversationBuilder {
    private ConversationBuilder() {
    }

    static Conversation of(ModelDescriptor model, List<ChatMessage> messages, ThinkingDecision thinking,
                           Optional<String> rewrittenQuestion) {
        StringBuilder system = new StringBuilder();
        List<ChatMessage> turns = new ArrayList<>();
        for (ChatMessage m : messages) {
            if (m.role() == Role.SYSTEM && turns.isEmpty()) {
                if (!system.isEmpty()) {
                    system.append("\n\n");
                }
                system.append(m.content());
            } else if (m.role() == Role.ASSISTANT) {
                turns.add(new ChatMessage(Role.ASSISTANT, MessageKeys.assistantText(m.content()), m.toolCalls(),
                        m.toolCallId()).withReasoning(m.reasoning()));
            } else if (m.role() == Role.USER) {
                turns.add(new ChatMessage(Role.USER, MessageKeys.userText(m.content()), List.of(), Optional.empty(),
                        m.images()));
            } else {
                turns.add(m);
            }
        }
        int firstNew = turns.size();
        // system messages after the first turn (agents' reminders) are new text at their place, like the user's
        while (firstNew > 0 && turns.get(firstNew - 1).role() != Role.ASSISTANT) {
            firstNew--;
        }
        if (turns.subList(firstNew, turns.size()).stream().allMatch(m -> m.role() == Role.SYSTEM)) {
            throw new FailureException(Failure.InvalidRequest.of("messages", turns.isEmpty()
                    ? "'messages' needs at least one user message"
                    : "the last message must be from the user or a tool (system messages aside), not the "
                            + (firstNew == 0 ? Role.SYSTEM : turns.get(firstNew - 1).role()).name()
                            .toLowerCase(Locale.ROOT)));
        }
        List<ChatMessage> fresh = new ArrayList<>(turns.subList(firstNew, turns.size()));
        int lastUser = fresh.size() - 1;
        while (lastUser >= 0 && fresh.get(lastUser).role() == Role.SYSTEM) {
            lastUser--;
        }
        ChatMessage last = fresh.get(lastUser);
        if (last.role() == Role.USER && thinking.strippedPrompt().isPresent()) {
            fresh.set(lastUser, new ChatMessage(Role.USER, thinking.strippedPrompt().get(), List.of(),
                    Optional.empty(), last.images()));
        }
        String systemPrompt = system.isEmpty() ? model.defaultSystemPrompt().orElse("") : system.toString();
        List<String> keys = new ArrayList<>(MessageKeys.keys(fresh));
        int question = lastUser;
        rewrittenQuestion.ifPresent(q -> keys.set(question,
                MessageKeys.key(new ChatMessage(Role.USER, MessageKeys.userText(q), List.of(), Optional.empty(),
                        fresh.get(question).images()))));
        return new Conversation(systemPrompt, turns.subList(0, firstNew), fresh, keys);
    }
}
