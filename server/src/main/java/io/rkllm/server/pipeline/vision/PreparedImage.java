package io.rkllm.server.pipeline.vision;

import io.rkllm.server.engine.contract.PromptImage;
import io.rkllm.server.pipeline.request.ChatImage;
import java.awt.image.BufferedImage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One picture of a request on its way to the encoder: decoded and fitted on the request's thread, before the run
 * is queued, at the size the model's encoder takes. The worker asks for the pixels only when the picture's
 * embedding is not cached; when the size it needs differs from the one prepared (the encoder was not loaded
 * yet, and its input is not what the catalogue expected), the picture is fitted again then.
 */
public final class PreparedImage implements PromptImage.Pixels {
    private static final Logger LOG = LoggerFactory.getLogger(PreparedImage.class);

    private record Fitted(int width, int height, byte[] rgb) {
    }

    private final ChatImage source;
    private final ImageDecoder decoder;
    private volatile Fitted fitted;

    public PreparedImage(ChatImage source, ImageDecoder decoder) {
        this.source = source;
        this.decoder = decoder;
    }

    public ChatImage source() {
        return source;
    }

    /** Whether the pixels for {@code width x height} are ready. */
    public boolean preparedFor(int width, int height) {
        Fitted f = fitted;
        return f != null && f.width() == width && f.height() == height;
    }

    /**
     * Decodes and fits the picture now (the request's thread).
     *
     * @throws ImageException when the picture cannot be used
     */
    public void prepare(int width, int height) {
        if (!preparedFor(width, height)) {
            BufferedImage picture = decoder.decode(source.data(), width, height);
            fitted = new Fitted(width, height, ImageFit.rgb(picture, width, height));
        }
    }

    @Override
    public byte[] rgb(int width, int height) {
        if (!preparedFor(width, height)) {
            LOG.debug("picture {} fitted on the model's thread: prepared for another size", source.digest());
            prepare(width, height);
        }
        return fitted.rgb();
    }
}
