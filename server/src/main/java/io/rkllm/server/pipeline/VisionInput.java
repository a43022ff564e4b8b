package io.rkllm.server.pipeline;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.PromptImage;
import io.rkllm.server.pipeline.request.ChatImage;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.vision.ImageException;
import io.rkllm.server.pipeline.vision.PreparedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The pictures a prepared chat shows its model, by digest, ready for the run; and what one costs in tokens.
 *
 * @param tokensPerImage tokens one picture takes in the context (the loaded encoder's, else the catalogue's)
 */
public record VisionInput(String model, Map<String, PreparedImage> images, int tokensPerImage) {
    public static final VisionInput NONE = new VisionInput("", Map.of(), 0);

    public VisionInput {
        images = Map.copyOf(images);
    }

    public boolean isEmpty() {
        return images.isEmpty();
    }

    /** The pictures of {@code messages} in prompt order, as the run takes them. */
    List<PromptImage> runImages(List<ChatMessage> messages) {
        List<PromptImage> out = new ArrayList<>();
        for (ChatMessage m : messages) {
            for (ChatImage image : m.images()) {
                PreparedImage prepared = images.get(image.digest());
                if (prepared == null) {
                    throw new IllegalStateException("picture " + image.digest() + " was not prepared");
                }
                out.add(new PromptImage(image.digest(), prepared));
            }
        }
        return out;
    }

    static int count(List<ChatMessage> messages) {
        return messages.stream().mapToInt(m -> m.images().size()).sum();
    }

    /**
     * Once the model is loaded, on the request's thread: pictures prepared for another size than its encoder
     * takes are fitted again, unless their embedding is cached.
     */
    void fitTo(EncoderInfo encoder, Predicate<String> cached) {
        for (var e : images.entrySet()) {
            if (!e.getValue().preparedFor(encoder.width(), encoder.height()) && !cached.test(e.getKey())) {
                prepare(e.getValue(), encoder.width(), encoder.height());
            }
        }
    }

    /** Fits a picture to the encoder's size; a picture that cannot be is the request's error (400). */
    static void prepare(PreparedImage image, int width, int height) {
        try {
            image.prepare(width, height);
        } catch (ImageException e) {
            throw new FailureException(new Failure.InvalidRequest(image.source().param(), e.code(),
                    e.getMessage()));
        }
    }
}
