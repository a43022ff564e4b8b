package io.rkllm.server.engine.contract;

/** How a generation that produced a result ended. */
public enum StopReason {
    /** The model ended its answer (EOS). */
    END,
    /** The token limit of the request was reached. */
    LENGTH,
    /** The consumer cancelled it (stop string, disconnect, timeout); see the generation's reason. */
    CANCELLED
}
