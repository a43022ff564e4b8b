package io.rkllm.server.backend.rkllm;

import io.rkllm.server.models.FileReading;
import io.rkllm.server.models.ModelFormat;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code .rkllm} files as the catalogue sees them: opaque (their context comes from the sidecar or the name), and a
 * vision model when an RKNN image encoder ({@code .rknn}) lies beside one.
 */
final class RkllmFormat implements ModelFormat {

    @Override
    public List<String> endings() {
        return List.of(".rkllm");
    }

    @Override
    public FileReading read(Path file) {
        return new FileReading.Read(new RkllmFacts(), Optional.empty());
    }

    @Override
    public boolean encodersBeside() {
        return true;
    }
}
