/**
 * The readers of tool-call blocks, one per way of writing a call (JSON objects, a name and its JSON arguments,
 * XML functions and parameters, key and value tags, Python calls, Gemma 4's, DeepSeek's and Kimi's markers): each
 * turns a block's text into {@link io.rkllm.server.pipeline.output.FunctionCall}s, or says it holds none.
 */
package io.rkllm.server.pipeline.output.calls;
