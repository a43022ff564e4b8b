package io.rkllm.server.engine.contract;

/**
 * A loaded image encoder as the layers above may know it: the picture it takes ({@code width x height} RGB) and
 * what it gives per picture ({@code imageTokens} tokens of {@code embeddingWidth} floats).
 */
public record EncoderInfo(int width, int height, int imageTokens, int embeddingWidth) {
}
