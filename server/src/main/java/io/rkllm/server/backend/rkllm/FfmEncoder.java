package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.rknn.CoreMask;
import io.rkllm.ffm.rknn.EmbeddingShape;
import io.rkllm.ffm.rknn.ImageEncoder;
import io.rkllm.ffm.rknn.RknnRuntime;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.VisionLoad;

/** The RKNN runtime's encoder as the engine sees it. */
final class FfmEncoder implements ImageEncoding {
    private final ImageEncoder encoder;
    private final EncoderInfo info;

    private FfmEncoder(ImageEncoder encoder) {
        this.encoder = encoder;
        EmbeddingShape shape = encoder.shape();
        this.info = new EncoderInfo(encoder.input().width(), encoder.input().height(), shape.imageTokens(),
                shape.embeddingWidth());
    }

    /** {@code rknn_init} of the model's encoder, on the calling (worker) thread. */
    static FfmEncoder open(RknnRuntime runtime, VisionLoad vision, String cores) {
        ImageEncoder encoder = runtime.openEncoder(vision.encoder(), cores(cores));
        if (encoder.input().channels() != 3) {
            encoder.close();
            throw new IllegalStateException("the image encoder " + vision.encoder() + " takes "
                    + encoder.input().channels() + " channels, not RGB's 3");
        }
        return new FfmEncoder(encoder);
    }

    static CoreMask cores(String setting) {
        return switch (setting) {
            case "auto" -> CoreMask.AUTO;
            case "0" -> CoreMask.CORE_0;
            case "1" -> CoreMask.CORE_1;
            case "2" -> CoreMask.CORE_2;
            case "0_1" -> CoreMask.CORES_0_1;
            case "0_1_2" -> CoreMask.CORES_0_1_2;
            default -> CoreMask.ALL;
        };
    }

    @Override
    public EncoderInfo info() {
        return info;
    }

    @Override
    public float[] encode(byte[] rgb) {
        return encoder.encode(rgb);
    }

    @Override
    public void close() {
        encoder.close();
    }
}
