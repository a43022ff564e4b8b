package io.rkllm.server.models;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The aliases a catalogue keeps: only those that name one model and no other model's id. */
final class ModelAliases {
    private ModelAliases() {
    }

    /**
     * Drops aliases that could not resolve to one model: an alias equal to another model's id, or claimed by
     * several models. An alias equal to the model's own id is dropped silently.
     */
    static List<ModelDescriptor> resolve(List<ModelDescriptor> models, List<Problem> warnings) {
        Map<String, ModelDescriptor> byId = new HashMap<>();
        models.forEach(m -> byId.put(m.id(), m));
        Map<String, Set<String>> claimants = new HashMap<>();
        for (ModelDescriptor m : models) {
            for (String alias : m.aliases()) {
                claimants.computeIfAbsent(alias, k -> new TreeSet<>()).add(m.id());
            }
        }
        List<ModelDescriptor> out = new ArrayList<>(models.size());
        for (ModelDescriptor m : models) {
            List<String> kept = new ArrayList<>();
            for (String alias : m.aliases()) {
                if (alias.equals(m.id())) {
                    continue;
                }
                if (byId.containsKey(alias)) {
                    warnings.add(Problem.warning(m.file(), "aliases", "'" + alias + "' of model '" + m.id()
                            + "' is the id of another model; ignored"));
                } else if (claimants.get(alias).size() > 1) {
                    warnings.add(Problem.warning(m.file(), "aliases", "'" + alias + "' is claimed by several models "
                            + claimants.get(alias) + "; ignored for all of them"));
                } else {
                    kept.add(alias);
                }
            }
            out.add(kept.equals(m.aliases()) ? m : m.withAliases(kept));
        }
        return out;
    }
}
