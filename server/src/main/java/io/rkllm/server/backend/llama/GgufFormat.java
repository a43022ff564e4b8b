package io.rkllm.server.backend.llama;

import io.rkllm.server.models.FileReading;
import io.rkllm.server.models.ModelFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * GGUF files as the catalogue sees them: each file's header read (no native code: discovery runs whether or not a
 * llama.cpp library is installed), its context chosen as the configuration serves GGUF models ({@link GgufLimits}).
 * A split model is served through its first part; a vision projector is no model of its own.
 */
final class GgufFormat implements ModelFormat {
    /** A later shard of a split GGUF model: llama.cpp loads it through the first one. */
    private static final Pattern LATER_SHARD = Pattern.compile("(?i).*-0*([2-9]|\\d{2,})-of-\\d+\\.gguf");

    private final GgufLimits limits;

    GgufFormat(GgufLimits limits) {
        this.limits = limits;
    }

    @Override
    public List<String> endings() {
        return List.of(".gguf");
    }

    @Override
    public FileReading read(Path file) {
        if (LATER_SHARD.matcher(file.getFileName().toString()).matches()) {
            return new FileReading.Skipped("a later part of a split GGUF model: served through its first part"
                    + " (-00001-of-...)");
        }
        GgufFacts facts;
        try {
            facts = GgufMetadata.read(file, limits.parallel());
        } catch (GgufMetadata.Unreadable e) {
            return new FileReading.Refused("not a usable GGUF model: " + e.getMessage());
        }
        if (facts.modelHeader().architecture().equals("clip")) {
            return new FileReading.Skipped("an image projector (mmproj) of a llama.cpp vision model; pictures through"
                    + " llama.cpp are not supported, so it is not served");
        }
        return new FileReading.Read(facts, Optional.of(limits.contextFor(facts, fileSize(file))));
    }

    private static long fileSize(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }
}
