package io.rkllm.server.download;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where a pulled model came from, as its pull recorded it beside its files: a repository of the Hub
 * ({@code OWNER/REPO}) at a commit, or a model of an Ollama registry ({@code registry.ollama.ai/library/qwen3:4b}) at
 * its manifest's digest. What an update pulls again, and the name Ollama's clients list it under.
 *
 * @param source   the repository or the registry's full name
 * @param revision the commit, or the manifest's digest
 */
public record PullOrigin(String source, String revision) {

    /** The origin of the model whose files are in {@code folder}, when a pull wrote them. */
    public static Optional<PullOrigin> of(Path folder) {
        return Receipt.read(folder).filter(r -> !r.source().isEmpty())
                .map(r -> new PullOrigin(r.source(), r.revision()));
    }

    /** The licence a pull kept beside a model ({@code LICENSE} in its folder), when there is one. */
    public static Optional<String> license(Path folder) {
        Path file = folder.resolve("LICENSE");
        try {
            return java.nio.file.Files.isRegularFile(file) && java.nio.file.Files.size(file) <= 1 << 20
                    ? Optional.of(java.nio.file.Files.readString(file)) : Optional.empty();
        } catch (java.io.IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** A registry's model (its name has a host and a tag), not a repository of the Hub. */
    public Optional<OllamaName> registryName() {
        return source.contains(":") ? OllamaName.parse(source).filter(OllamaName::explicitHost) : Optional.empty();
    }

    /** The name to pull it again by: the registry's name as Ollama lists it, else the repository. */
    public String pullName() {
        return registryName().map(OllamaName::shortest).orElse(source);
    }
}
