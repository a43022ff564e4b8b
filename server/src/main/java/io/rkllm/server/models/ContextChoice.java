package io.rkllm.server.models;

/** A context length a model is served with, and where it came from (for the log lines and {@code models}). */
public record ContextChoice(int length, String source) {
}
