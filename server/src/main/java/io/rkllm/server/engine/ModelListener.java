package io.rkllm.server.engine;

import io.rkllm.server.engine.contract.EncoderListener;
import java.time.Duration;

/** Loading, unloading and load failures, and what backends report of image encoders, for metrics. */
public interface ModelListener extends EncoderListener {
    default void loaded(String id, Duration took) {
    }

    default void unloaded(String id, String why) {
    }

    default void loadFailed(String id, String message) {
    }
}
