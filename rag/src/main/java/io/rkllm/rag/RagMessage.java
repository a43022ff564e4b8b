package io.rkllm.rag;

import java.util.Objects;

/**
 * One chat message as the builder sees it: a role ({@code system}, {@code user}, {@code assistant},
 * {@code tool}...) and its text (multi-part content flattened to text by the caller).
 */
public record RagMessage(String role, String text) {
    public RagMessage {
        Objects.requireNonNull(role, "role");
        text = text == null ? "" : text;
    }

    public static RagMessage system(String text) {
        return new RagMessage("system", text);
    }

    public static RagMessage user(String text) {
        return new RagMessage("user", text);
    }

    public static RagMessage assistant(String text) {
        return new RagMessage("assistant", text);
    }

    boolean is(String r) {
        return role.equalsIgnoreCase(r);
    }
}
