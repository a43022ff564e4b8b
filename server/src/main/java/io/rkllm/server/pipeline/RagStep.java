package io.rkllm.server.pipeline;

import io.rkllm.rag.RagInput;
import io.rkllm.rag.RagMessage;
import io.rkllm.rag.RagOptions;
import io.rkllm.rag.RagPromptBuilder;
import io.rkllm.rag.RagResult;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Open WebUI's retrieved web and document text, rewritten by the rag module into a compact prompt
 * that fits the model's context, before the conversation is built. The rewritten user message is
 * remembered in the KV cache bookkeeping as the user's own question, which is how Open WebUI sends
 * it back in later turns.
 */
final class RagStep {
    private final RagPromptBuilder builder = new RagPromptBuilder();
    private final RagOptions options;
    private final TokenEstimator estimator;
    private final Clock clock;

    /** The messages to use, and what the RAG step decided. */
    record Applied(List<ChatMessage> messages, Optional<RagResult> result) {
        boolean thinkingOff() {
            return result.map(RagResult::recommendThinkingOff).orElse(false);
        }

        /** The user's own question, as the client stores the rewritten message. */
        Optional<String> question() {
            return result.map(RagResult::question);
        }

        /** The X-RKLLM-RAG header: sources and passages used, and what was noticed. */
        String summary() {
            RagResult r = result.orElseThrow();
            return "sources=" + r.sources().size() + " passages="
                    + r.sources().stream().mapToInt(x -> x.passages().size()).sum()
                    + (r.nothingRelevant() ? " nothing_relevant" : "") + (r.followUp() ? " follow_up" : "")
                    + (thinkingOff() ? " thinking_off" : "");
        }
    }

    RagStep(RagOptions options, TokenEstimator estimator, Clock clock) {
        this.options = options;
        this.estimator = estimator;
        this.clock = clock;
    }

    Applied apply(List<ChatMessage> messages, ModelDescriptor model, int reserve) {
        if (!options.enabled() || messages.getLast().role() != Role.USER) {
            return new Applied(messages, Optional.empty());
        }
        List<RagMessage> rag = new ArrayList<>(messages.size());
        StringBuilder rest = new StringBuilder();
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            rag.add(new RagMessage(m.role().name().toLowerCase(Locale.ROOT), m.content()));
            if (m.role() != Role.SYSTEM && i < messages.size() - 1) {
                rest.append(m.content()).append("\n\n");
            }
        }
        int conversationTokens = estimator.estimate(model.id(), rest.toString());
        RagResult result = builder.build(new RagInput(rag, null, model.contextLength(), reserve, conversationTokens,
                text -> estimator.estimate(model.id(), text), LocalDate.now(clock), options));
        if (!result.detected()) {
            return new Applied(messages, Optional.empty());
        }
        List<ChatMessage> rewritten = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            if (i == messages.size() - 1) {
                rewritten.add(new ChatMessage(Role.USER, result.userText(), List.of(), Optional.empty(), m.images()));
            } else if (m.role() == Role.SYSTEM && result.systemText() != null && isFirstSystem(messages, i)) {
                rewritten.add(new ChatMessage(Role.SYSTEM, result.systemText(), List.of(), Optional.empty()));
            } else {
                rewritten.add(m);
            }
        }
        return new Applied(List.copyOf(rewritten), Optional.of(result));
    }

    private static boolean isFirstSystem(List<ChatMessage> messages, int index) {
        for (int i = 0; i < index; i++) {
            if (messages.get(i).role() == Role.SYSTEM) {
                return false;
            }
        }
        return true;
    }
}
