package io.rkllm.server.engine;

/**
 * What the pipeline may know of the runtime: its ABI's label, whether sampling can change per run, and the
 * sampling values it uses when nothing else is set.
 */
public record RuntimeInfo(String abi, boolean perRunSampling, Sampling defaultSampling) {
}
