package io.rkllm.server.engine.contract;

import java.time.Duration;

/** What a backend reports of a vision model's image encoder, for metrics. */
public interface EncoderListener {

    /** The image encoder of a vision model ran for one picture. */
    default void imageEncoded(String id, Duration took) {
    }

    /** A picture's embedding came from the cache: no encoder run. */
    default void imageFromCache(String id) {
    }

    default void encoderFailed(String id, String message) {
    }
}
