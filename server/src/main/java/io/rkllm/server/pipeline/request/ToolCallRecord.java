package io.rkllm.server.pipeline.request;

/** A tool call made by the assistant, as it appears in history or in output. */
public record ToolCallRecord(String id, String name, String argumentsJson) {
}
