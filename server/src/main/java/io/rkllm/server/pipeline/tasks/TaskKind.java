package io.rkllm.server.pipeline.tasks;

import java.util.Optional;

/** Open WebUI's background tasks, with the JSON key each answer must carry. */
public enum TaskKind {
    TITLE("title"),
    TAGS("tags"),
    FOLLOW_UPS("follow_ups"),
    QUERIES("queries"),
    AUTOCOMPLETE("text"),
    OTHER("");

    private final String jsonKey;

    TaskKind(String jsonKey) {
        this.jsonKey = jsonKey;
    }

    /** The key Open WebUI reads from the answer's JSON object; empty for unknown tasks. */
    public Optional<String> jsonKey() {
        return jsonKey.isEmpty() ? Optional.empty() : Optional.of(jsonKey);
    }
}
