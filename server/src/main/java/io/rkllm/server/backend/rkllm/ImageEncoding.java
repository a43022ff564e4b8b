package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.EncoderInfo;

/**
 * A loaded image encoder, used only on its model's worker thread: RGB bytes in, the embeddings the language
 * model takes out. The RKNN runtime's encoder behind an interface, so the image step can be tested with its
 * own.
 */
interface ImageEncoding extends AutoCloseable {

    EncoderInfo info();

    /** One picture: {@code info().width() x info().height() x 3} RGB bytes. Blocks for the encoder run. */
    float[] encode(byte[] rgb);

    @Override
    void close();
}
