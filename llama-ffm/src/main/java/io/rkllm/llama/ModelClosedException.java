package io.rkllm.llama;

/** A model's vocabulary asked for after the model was freed (it was unloaded meanwhile). */
public final class ModelClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ModelClosedException() {
        super("the model is closed");
    }
}
