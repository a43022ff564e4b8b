package io.rkllm.server.backend.llama;

import io.rkllm.server.models.FileReading;
import io.rkllm.server.models.ModelFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * GGUF files as the catalogue sees them: each file's header read (no native code: discovery runs whether or not a
 * llama.cpp library is installed), its context chosen as the configuration serves GGUF models ({@link GgufLimits}).
 * A split model is served through its first part, when every part is there ({@link SplitParts}); a vision projector is no model of its own.
 */
final class GgufFormat implements ModelFormat {
    private final GgufLimits limits;

    GgufFormat(GgufLimits limits) {
        this.limits = limits;
    }

    @Override
    public List<String> endings() {
        return List.of(".gguf");
    }

    @Override
    public boolean partOfAnother(Path file) {
        return SplitParts.of(file).filter(p -> !p.first() && Files.isRegularFile(p.firstPart())).isPresent();
    }

    @Override
    public FileReading read(Path file) {
        Optional<SplitParts> split = SplitParts.of(file);
        if (split.isPresent() && !split.get().first()) {
            return new FileReading.Skipped("part " + split.get().number() + " of " + split.get().count() + " of a"
                    + " split GGUF model, served through its first part, " + split.get().firstPart().getFileName()
                    + ", which is not there");
        }
        List<Path> later = split.map(SplitParts::later).orElse(List.of());
        Optional<Path> missing = later.stream().filter(p -> !Files.isRegularFile(p)).findFirst();
        if (missing.isPresent()) {
            return new FileReading.Refused("part of a split GGUF model whose other parts must lie beside it: "
                    + missing.get().getFileName() + " is missing");
        }
        GgufFacts facts;
        try {
            facts = GgufMetadata.read(file, later, limits.parallel(), limits.layout());
        } catch (GgufMetadata.Unreadable e) {
            return new FileReading.Refused("not a usable GGUF model: " + e.getMessage());
        }
        if (facts.modelHeader().architecture().equals("clip")) {
            return new FileReading.Skipped("an image projector (mmproj) of a llama.cpp vision model; pictures through"
                    + " llama.cpp are not supported, so it is not served");
        }
        return new FileReading.Read(facts, Optional.of(limits.contextFor(facts, fileSize(file)
                + facts.otherFilesBytes())));
    }

    private static long fileSize(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }
}
