package io.rkllm.server.models;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a model is a vision-language model: an image encoder ({@code .rknn}) beside its {@code .rkllm} (the only
 * one in the model's own folder, or the one its sidecar's {@code vision.encoder} names), with the image tags and
 * sizes of its family unless the sidecar sets them. A family whose tags are not known needs them in the sidecar:
 * until then the model is served as a text model, with a warning.
 */
final class VisionDiscovery {
    static final String EXTENSION = ".rknn";

    /** The sidecar names an encoder that is not there: the model is not served. */
    static final class Refused extends Exception {
        private final Problem problem;

        Refused(Problem problem) {
            super(problem.message());
            this.problem = problem;
        }

        Problem problem() {
            return problem;
        }
    }

    private VisionDiscovery() {
    }

    static Optional<VisionSpec> of(Path model, boolean inOwnFolder, Sidecar sidecar, String folderName,
                                   List<Problem> warnings) throws Refused {
        Sidecar.Vision v = sidecar.vision();
        if (v.enabled().isPresent() && !v.enabled().get()) {
            return Optional.empty();
        }
        Optional<Path> encoder = encoder(model, inOwnFolder, sidecar, warnings);
        if (encoder.isEmpty()) {
            if (v.enabled().orElse(false)) {
                throw new Refused(Problem.error(sidecar.path(), "vision.enabled", "is true, but no " + EXTENSION
                        + " encoder is beside " + model.getFileName() + "; set vision.encoder"));
            }
            return Optional.empty();
        }
        VisionProfiles.Profile profile = VisionProfiles.detect(folderName, model.getFileName().toString(),
                encoder.get().getFileName().toString());
        Optional<List<String>> tags = profile.tags();
        if (v.imageStart().isPresent() || v.imageEnd().isPresent() || v.imageContent().isPresent()) {
            if (v.imageContent().isEmpty() && tags.isEmpty()) {
                warnings.add(Problem.warning(sidecar.path(), "vision.image_content", "is needed with image_start and"
                        + " image_end; " + model.getFileName() + " is served as a text model"));
                return Optional.empty();
            }
            List<String> base = tags.orElse(List.of("", "", ""));
            tags = Optional.of(List.of(v.imageStart().orElse(base.get(0)), v.imageEnd().orElse(base.get(1)),
                    v.imageContent().orElse(base.get(2))));
        }
        if (tags.isEmpty()) {
            warnings.add(Problem.warning(encoder.get(), "the image tags of this model's family are not known: set"
                    + " vision.image_start, vision.image_end and vision.image_content in its sidecar ("
                    + ModelDiscovery.SIDECAR + "); " + model.getFileName() + " is served as a text model until then"));
            return Optional.empty();
        }
        return Optional.of(new VisionSpec(encoder.get(), size(encoder.get()), profile.name(),
                new VisionSpec.Tags(tags.get().get(0), tags.get().get(1), tags.get().get(2)),
                new VisionSpec.Expected(v.imageWidth().orElse(profile.imageSize()),
                        v.imageHeight().orElse(profile.imageSize()), v.imageTokens().orElse(profile.imageTokens())),
                v.maxImages().orElse(profile.maxImages()), v.baseDomainId().orElse(VisionProfiles.DEFAULT_BASE_DOMAIN)));
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException | SecurityException e) {
            return 0;
        }
    }

    private static Optional<Path> encoder(Path model, boolean inOwnFolder, Sidecar sidecar, List<Problem> warnings)
            throws Refused {
        Path folder = model.getParent();
        Optional<String> named = sidecar.vision().encoder();
        if (named.isPresent()) {
            Path base = sidecar.path().getParent() == null ? folder : sidecar.path().getParent();
            Path file = base.resolve(named.get()).normalize();
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                throw new Refused(Problem.error(sidecar.path(), "vision.encoder", "names " + file
                        + ", which is not a readable file"));
            }
            return Optional.of(file);
        }
        if (!inOwnFolder) {
            return Optional.empty();
        }
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (!name.startsWith(".") && name.toLowerCase(Locale.ROOT).endsWith(EXTENSION)
                        && Files.isRegularFile(p)) {
                    found.add(p);
                }
            }
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        found.sort(null);
        if (found.size() > 1) {
            warnings.add(Problem.warning(folder, "holds " + found.size() + " " + EXTENSION + " encoders; name the one"
                    + " for " + model.getFileName() + " with vision.encoder in its sidecar (served as a text model"
                    + " until then)"));
            return Optional.empty();
        }
        return found.stream().findFirst();
    }
}
