package io.rkllm.server.models;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@link ModelDiscovery#discover} found.
 *
 * @param models   the servable models, sorted by id; a model whose sidecar has an error is not among them
 * @param warnings things to log; nothing was refused because of them
 * @param errors   things that made a model (or the whole directory) unusable; a caller may log them and
 *                 serve the rest, or refuse to start (exit code 2)
 */
public record DiscoveryResult(List<ModelDescriptor> models, List<Problem> warnings, List<Problem> errors) {

    public DiscoveryResult {
        models = List.copyOf(models);
        warnings = List.copyOf(warnings);
        errors = List.copyOf(errors);
    }

    /** How an error says that the engine's format refused a model file itself (damaged, truncated, not a model). */
    static final String REFUSED = "not served: ";

    public boolean hasErrors() {
        return !errors.isEmpty();
    }

    /**
     * Whether the engine refused {@code file} for what it is (a damaged or unusable model file), not for something
     * beside it (its {@code model.yaml}, an image encoder): a pulled file it refuses is removed again, nothing else.
     */
    public boolean refusedFile(Path file) {
        return catalog().refusedFile(file);
    }

    /**
     * These models with the models of {@code other} beside them (--simulate: the simulated models, and the real models
     * of the models directory whose engines are not simulated, found with those engines' formats alone); an id both
     * have keeps this one's.
     */
    public DiscoveryResult withModelsOf(DiscoveryResult other) {
        List<ModelDescriptor> all = new ArrayList<>(models);
        Set<String> ids = new HashSet<>(models.stream().map(ModelDescriptor::id).toList());
        List<Problem> warned = new ArrayList<>(warnings);
        for (ModelDescriptor m : other.models()) {
            if (ids.add(m.id())) {
                all.add(m);
            } else {
                warned.add(Problem.warning(m.file(), "its id '" + m.id() + "' is a simulated model's; not served"));
            }
        }
        all.sort(Comparator.comparing(ModelDescriptor::id));
        List<Problem> failed = new ArrayList<>(errors);
        failed.addAll(other.errors());
        return new DiscoveryResult(all, warned, failed);
    }

    /** A catalog over {@link #models()}. */
    public ModelCatalog catalog() {
        Set<Path> refused = new HashSet<>();
        errors.stream().filter(p -> p.message().startsWith(REFUSED))
                .forEach(p -> refused.add(p.path().toAbsolutePath().normalize()));
        return new ModelCatalog(models, refused);
    }
}
