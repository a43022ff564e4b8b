package io.rkllm.server.models;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The models the server offers, and how a requested name finds one. Case-insensitive, in this order:
 * <ol>
 *   <li>the exact id;</li>
 *   <li>an alias (one model claims it);</li>
 *   <li>a prefix of exactly one model's id or alias ({@code qwen} finds {@code qwen3-1.7b} when no other id or
 *       alias starts with {@code qwen});</li>
 *   <li>the same three steps for the name with an Ollama-style {@code :latest} tag removed, then for the name
 *       sanitised like an id ({@code Qwen3 1.7B} finds {@code qwen3-1.7b}).</li>
 * </ol>
 * An ambiguous prefix finds nothing; {@link #candidates} lists the ids it could mean. Immutable.
 */
public final class ModelCatalog {

    private static final String LATEST_TAG = ":latest";

    /** Whether discovery found {@code file} and its engine refused it for what it is (not for its model.yaml). */
    public boolean refusedFile(Path file) {
        return refusedFiles.contains(file.toAbsolutePath().normalize());
    }

    private final List<ModelDescriptor> models;
    private final Map<String, ModelDescriptor> byId = new HashMap<>();
    private final Map<String, ModelDescriptor> byAlias = new HashMap<>();
    /** Every id and every unambiguous alias, with its model. */
    private final Map<String, ModelDescriptor> names = new HashMap<>();

    /** Model files the engines refused for what they are (damaged, not models): what a pull removes again. */
    private final Set<Path> refusedFiles;

    /**
     * @throws IllegalArgumentException when two models share an id
     */
    public ModelCatalog(List<ModelDescriptor> models) {
        this(models, Set.of());
    }

    /**
     * @param refusedFiles the model files discovery found that their engine refused (absolute, normalised)
     * @throws IllegalArgumentException when two models share an id
     */
    public ModelCatalog(List<ModelDescriptor> models, Set<Path> refusedFiles) {
        this.refusedFiles = Set.copyOf(refusedFiles);
        List<ModelDescriptor> sorted = new ArrayList<>(models);
        sorted.sort(Comparator.comparing(ModelDescriptor::id));
        this.models = List.copyOf(sorted);
        for (ModelDescriptor m : this.models) {
            if (byId.putIfAbsent(m.id().toLowerCase(Locale.ROOT), m) != null) {
                throw new IllegalArgumentException("duplicate model id " + m.id());
            }
        }
        Map<String, Set<ModelDescriptor>> claims = new HashMap<>();
        for (ModelDescriptor m : this.models) {
            for (String alias : m.aliases()) {
                String key = alias.toLowerCase(Locale.ROOT);
                if (!byId.containsKey(key)) {
                    claims.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(m);
                }
            }
        }
        claims.forEach((alias, owners) -> {
            if (owners.size() == 1) {
                byAlias.put(alias, owners.iterator().next());
            }
        });
        names.putAll(byAlias);
        names.putAll(byId);
    }

    /** Finds the model a client means by {@code nameOrAlias}; empty when unknown or ambiguous. */
    public Optional<ModelDescriptor> resolve(String nameOrAlias) {
        if (nameOrAlias == null || nameOrAlias.isBlank()) {
            return Optional.empty();
        }
        String key = nameOrAlias.strip().toLowerCase(Locale.ROOT);
        Optional<ModelDescriptor> found = lookup(key);
        if (found.isEmpty() && key.endsWith(LATEST_TAG) && key.length() > LATEST_TAG.length()) {
            key = key.substring(0, key.length() - LATEST_TAG.length());
            found = lookup(key);
        }
        if (found.isEmpty()) {
            String sanitized = ModelIds.sanitize(key);
            if (!sanitized.isEmpty() && !sanitized.equals(key)) {
                found = lookup(sanitized);
            }
        }
        return found;
    }

    private Optional<ModelDescriptor> lookup(String key) {
        ModelDescriptor exact = byId.get(key);
        if (exact != null) {
            return Optional.of(exact);
        }
        ModelDescriptor aliased = byAlias.get(key);
        if (aliased != null) {
            return Optional.of(aliased);
        }
        Set<ModelDescriptor> matches = prefixMatches(key);
        return matches.size() == 1 ? Optional.of(matches.iterator().next()) : Optional.empty();
    }

    /**
     * Ids of the models whose id or alias starts with {@code prefix} (case-insensitive), sorted; for a helpful
     * "did you mean" in a 404. An empty prefix lists every id.
     */
    public List<String> candidates(String prefix) {
        String key = prefix == null ? "" : prefix.strip().toLowerCase(Locale.ROOT);
        return prefixMatches(key).stream().map(ModelDescriptor::id).sorted().toList();
    }

    private Set<ModelDescriptor> prefixMatches(String key) {
        Set<ModelDescriptor> matches = new LinkedHashSet<>();
        for (Map.Entry<String, ModelDescriptor> e : names.entrySet()) {
            if (e.getKey().startsWith(key)) {
                matches.add(e.getValue());
            }
        }
        return matches;
    }

    /**
     * The model of exactly this id or alias (any case; {@code :latest} or not; an Ollama name pulled is its alias,
     * as an id spells it): what a delete may name, never a prefix, nor another model's id spelt otherwise.
     */
    public Optional<ModelDescriptor> exactly(String name) {
        String key = name.strip().toLowerCase(Locale.ROOT);
        List<String> keys = new ArrayList<>(List.of(key));
        if (key.endsWith(LATEST_TAG) && key.length() > LATEST_TAG.length()) {
            keys.add(key.substring(0, key.length() - LATEST_TAG.length()));
        }
        for (String k : keys) {
            // an alias is kept as a model's id is spelt (an Ollama name's '/' and ':' made '-'); an id is only itself
            ModelDescriptor found = byId.containsKey(k) ? byId.get(k)
                    : byAlias.getOrDefault(k, byAlias.get(ModelIds.sanitize(k)));
            if (found != null) {
                return Optional.of(found);
            }
        }
        return Optional.empty();
    }

    /** The model of exactly this id (any case); no alias, prefix or tag. */
    public Optional<ModelDescriptor> byId(String id) {
        return Optional.ofNullable(byId.get(id.toLowerCase(Locale.ROOT)));
    }

    /** This catalogue without the model of that id. */
    public ModelCatalog without(String id) {
        return new ModelCatalog(models.stream().filter(m -> !m.id().equalsIgnoreCase(id)).toList());
    }

    /** Every model, sorted by id. */
    public List<ModelDescriptor> all() {
        return models;
    }

    public boolean isEmpty() {
        return models.isEmpty();
    }
}
