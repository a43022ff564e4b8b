package io.rkllm.llama;

/** llama.cpp's own timing counters of a context ({@code llama_perf_context}), since the last reset. */
public record PerfData(double loadMs, double promptMs, double evalMs, int promptTokens, int evalTokens) {
}
