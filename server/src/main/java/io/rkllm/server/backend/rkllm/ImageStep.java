package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.ImageEmbeddingCache;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.EncoderListener;
import io.rkllm.server.engine.contract.PromptImage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pictures of a run turned into embeddings, on the model's worker thread, before its {@code rkllm_run}: each
 * from the embedding cache when it is there, else from the encoder, which runs with the NPU to itself. A request
 * cancelled meanwhile (its client left) stops between pictures and never reaches the language model; the encoder
 * cannot be interrupted within a picture (the RKNN API has no abort).
 */
final class ImageStep {
    private static final Logger LOG = LoggerFactory.getLogger(ImageStep.class);

    /** What came of it. */
    sealed interface Result {
        /** One embedding per picture, in order. */
        record Ready(List<float[]> embeddings, EncoderInfo encoder) implements Result {
        }

        /** The request was cancelled before every picture was ready. */
        record Cancelled() implements Result {
        }

        /** A picture could not be encoded; the message is for the client. */
        record Failed(String message) implements Result {
        }
    }

    private final String model;
    private final ImageEncoding encoder;
    private final ImageEmbeddingCache cache;
    private final NpuLock npu;
    private final EncoderListener listener;

    ImageStep(String model, ImageEncoding encoder, ImageEmbeddingCache cache, NpuLock npu,
              EncoderListener listener) {
        this.model = model;
        this.encoder = encoder;
        this.cache = cache;
        this.npu = npu;
        this.listener = listener;
    }

    EncoderInfo encoder() {
        return encoder.info();
    }

    Result embed(List<PromptImage> images, BooleanSupplier cancelled) {
        EncoderInfo info = encoder.info();
        List<float[]> out = new ArrayList<>(images.size());
        for (PromptImage image : images) {
            if (cancelled.getAsBoolean()) {
                return new Result.Cancelled();
            }
            Optional<float[]> cached = cache.get(model, image.key());
            if (cached.isPresent()) {
                listener.imageFromCache(model);
                out.add(cached.get());
                continue;
            }
            byte[] rgb;
            try {
                rgb = image.pixels().rgb(info.width(), info.height());
            } catch (RuntimeException e) {
                return new Result.Failed(e.getMessage());
            }
            if (!npu.encoding(cancelled)) {
                return new Result.Cancelled();
            }
            float[] embedding;
            long started = System.nanoTime();
            try {
                embedding = encoder.encode(rgb);
            } catch (RuntimeException e) {
                LOG.warn("model {}: the image encoder failed: {}", model, e.getMessage());
                listener.encoderFailed(model, e.getMessage());
                return new Result.Failed("the image encoder failed: " + e.getMessage());
            } finally {
                npu.encoded();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            LOG.debug("model {}: picture {} encoded in {} ms", model, image.key(), took.toMillis());
            listener.imageEncoded(model, took);
            cache.put(model, image.key(), embedding);
            out.add(embedding);
        }
        return new Result.Ready(out, info);
    }

    void close() {
        try {
            encoder.close();
        } catch (RuntimeException e) {
            LOG.warn("model {}: closing the image encoder failed", model, e);
        }
    }
}
