package io.rkllm.server.pipeline.output;

/**
 * An unclosed tool-call block made whole ({@link CallReader#endings}): {@code text} (the block's text, less any start
 * of a marker it ends with), then {@code tail}, which closes what is open. Text not yet written goes between them.
 */
public record CallEnding(String text, String tail) {
}
