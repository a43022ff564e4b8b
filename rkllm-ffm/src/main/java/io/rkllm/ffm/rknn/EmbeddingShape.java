package io.rkllm.ffm.rknn;

import java.util.List;

/**
 * The shape of an encoder's result: {@code imageTokens} tokens per image, each {@code outputs x
 * outputWidth} floats. One output for most encoders; Qwen3-VL encoders exported by rkllm-toolkit 1.2.3
 * and later have four (the image embeddings and three "deepstack" layers) that the language model
 * takes interleaved token by token: token 0 of output 0, token 0 of output 1, ..., token 1 of output 0.
 */
public record EmbeddingShape(int imageTokens, int outputWidth, int outputs) {

    /** Floats per image token: what the language model reads per token. */
    public int embeddingWidth() {
        return outputs * outputWidth;
    }

    /** Floats per image. */
    public int floats() {
        return imageTokens * embeddingWidth();
    }

    /**
     * From the output tensors, as the official demo reads them: in each output's dimensions the first one
     * above 1 (that has one after it) is the token count and the next one the width, e.g. [196, 2048] or
     * [1, 196, 2048]. Every output must have the same tokens and width, and no other elements.
     */
    public static EmbeddingShape of(List<TensorAttr> outputs) {
        if (outputs.isEmpty()) {
            throw new RknnException("the encoder has no output", -1);
        }
        int tokens = -1;
        int width = -1;
        for (TensorAttr out : outputs) {
            int t = -1;
            int w = -1;
            List<Integer> dims = out.dims();
            for (int i = 0; i + 1 < dims.size(); i++) {
                if (dims.get(i) > 1) {
                    t = dims.get(i);
                    w = dims.get(i + 1);
                    break;
                }
            }
            if (t <= 0 || w <= 0 || (long) t * w != out.elements()) {
                throw new RknnException("encoder output " + out.index() + " (" + out.name() + ") has dims " + dims
                        + " and " + out.elements() + " elements: not tokens x width", -1);
            }
            if (tokens >= 0 && (t != tokens || w != width)) {
                throw new RknnException("encoder outputs differ in shape: " + tokens + " x " + width + " and "
                        + t + " x " + w + " (output " + out.index() + ")", -1);
            }
            tokens = t;
            width = w;
        }
        return new EmbeddingShape(tokens, width, outputs.size());
    }
}
