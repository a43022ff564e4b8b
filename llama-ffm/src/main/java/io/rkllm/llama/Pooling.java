package io.rkllm.llama;

/** llama.cpp's {@code enum llama_pooling_type}: how a sequence's token embeddings become one vector. */
public enum Pooling {
    /** The model's own (its GGUF's {@code <arch>.pooling_type}, where the build reads it). */
    UNSPECIFIED(-1),
    NONE(0),
    MEAN(1),
    CLS(2),
    LAST(3),
    /** Rerankers: one score per sequence. */
    RANK(4);

    private final int value;

    Pooling(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    static Pooling of(int value) {
        for (Pooling p : values()) {
            if (p.value == value) {
                return p;
            }
        }
        throw new LlamaException("unknown pooling type " + value);
    }
}
