package io.rkllm.server.pipeline.tasks;

import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.Role;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Recognises Open WebUI's background task requests: one user message starting with a task prefix
 * ("### Task:" in Open WebUI's templates, configurable because admins edit them), which is not its
 * RAG template (that one starts the same way but carries retrieved {@code <context>}).
 */
public final class TaskDetector {
    private final List<String> prefixes;

    public TaskDetector(List<String> prefixes) {
        this.prefixes = List.copyOf(prefixes);
    }

    public Optional<TaskKind> detect(ChatRequest request) {
        List<ChatMessage> messages = request.messages().stream().filter(m -> m.role() != Role.SYSTEM).toList();
        if (messages.size() != 1 || messages.getFirst().role() != Role.USER
                || request.raw().isPresent()) {
            return Optional.empty();
        }
        String text = messages.getFirst().content().stripLeading();
        if (prefixes.stream().noneMatch(text::startsWith)) {
            return Optional.empty();
        }
        if (text.contains("<context>") || text.contains("<source")) {
            return Optional.empty();
        }
        return Optional.of(classify(text));
    }

    static TaskKind classify(String text) {
        String head = text.substring(0, Math.min(text.length(), 600)).toLowerCase(Locale.ROOT);
        String output = text.toLowerCase(Locale.ROOT);
        if (head.contains("autocompletion") || output.contains("\"text\": \"<your_completion>\"")) {
            return TaskKind.AUTOCOMPLETE;
        }
        if (head.contains("follow-up") || head.contains("follow up") || output.contains("\"follow_ups\"")) {
            return TaskKind.FOLLOW_UPS;
        }
        if (head.contains("search quer") || head.contains("queries") || output.contains("\"queries\"")) {
            return TaskKind.QUERIES;
        }
        if (head.contains("tags") || output.contains("\"tags\"")) {
            return TaskKind.TAGS;
        }
        if (head.contains("title") || output.contains("\"title\"")) {
            return TaskKind.TITLE;
        }
        return TaskKind.OTHER;
    }
}
