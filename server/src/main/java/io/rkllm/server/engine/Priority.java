package io.rkllm.server.engine;

/** Queue classes: interactive chats run before background work (Open WebUI's title/tags tasks). */
public enum Priority {
    INTERACTIVE,
    BACKGROUND
}
