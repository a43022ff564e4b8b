package io.rkllm.server.pipeline.request;

/** Message roles; OpenAI's {@code developer} is treated as {@code system}. */
public enum Role {
    SYSTEM,
    USER,
    ASSISTANT,
    TOOL
}
