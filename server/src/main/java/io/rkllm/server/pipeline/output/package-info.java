/**
 * Between the inference engine and the HTTP routes: {@link io.rkllm.server.pipeline.output.OutputScanner}
 * turns the model's streamed text into content, reasoning ({@code <think>}) and tool calls
 * ({@code <tool_call>}), and applies stop strings; {@link io.rkllm.server.pipeline.output.ThinkStripper}
 * removes reasoning from earlier assistant turns sent back to the model.
 */
package io.rkllm.server.pipeline.output;
