package io.rkllm.server.models;

import java.util.List;

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

    public boolean hasErrors() {
        return !errors.isEmpty();
    }

    /** A catalog over {@link #models()}. */
    public ModelCatalog catalog() {
        return new ModelCatalog(models);
    }
}
