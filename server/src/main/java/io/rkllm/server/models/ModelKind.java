package io.rkllm.server.models;

import java.util.Locale;
import java.util.Optional;

/** What a model is for: answering chats, or turning texts into vectors (it cannot chat). */
public enum ModelKind {
    CHAT, EMBEDDING;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<ModelKind> parse(String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "chat", "llm", "completion" -> Optional.of(CHAT);
            case "embedding", "embeddings", "embed" -> Optional.of(EMBEDDING);
            default -> Optional.empty();
        };
    }
}
