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

    /**
     * These models with the GGUF models of {@code other} beside them (--simulate: the simulated models, and the
     * real GGUF models of the models directory, which llama.cpp serves for real); an id both have keeps this one's.
     */
    public DiscoveryResult withGgufOf(DiscoveryResult other) {
        List<ModelDescriptor> all = new java.util.ArrayList<>(models);
        java.util.Set<String> ids = new java.util.HashSet<>(models.stream().map(ModelDescriptor::id).toList());
        List<Problem> warned = new java.util.ArrayList<>(warnings);
        for (ModelDescriptor m : other.models()) {
            if (m.gguf().isEmpty()) {
                continue;
            }
            if (ids.add(m.id())) {
                all.add(m);
            } else {
                warned.add(Problem.warning(m.file(), "its id '" + m.id() + "' is a simulated model's; not served"));
            }
        }
        all.sort(java.util.Comparator.comparing(ModelDescriptor::id));
        List<Problem> failed = new java.util.ArrayList<>(errors);
        other.errors().stream().filter(p -> p.path().getFileName() != null
                && p.path().getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".gguf"))
                .forEach(failed::add);
        return new DiscoveryResult(all, warned, failed);
    }

    /** A catalog over {@link #models()}. */
    public ModelCatalog catalog() {
        return new ModelCatalog(models);
    }
}
