package io.rkllm.server.engine;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.Backend;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The backends of this server by the name of their engine, and the engines that have none with the reason (a library
 * not installed): the application opens them, the registry finds a model's by the engine its facts name when the
 * model loads.
 */
public record Backends(Map<String, Backend> available, Map<String, Unavailable> unavailable) {

    /**
     * An engine without a backend.
     *
     * @param title what it is, as a user knows it ("RKLLM runtime")
     * @param reason why it is not available, with the fix
     */
    public record Unavailable(String title, String reason) {
    }

    public Backends {
        // the order is the providers': the first available engine is what /health reports
        available = Collections.unmodifiableMap(new LinkedHashMap<>(available));
        unavailable = Map.copyOf(unavailable);
    }

    /** One engine's backend, available. */
    public static Backends of(String engine, Backend backend) {
        return new Backends(Map.of(engine, backend), Map.of());
    }

    /** The first available backend: what {@code /health} reports. */
    public Optional<Backend> primary() {
        return available.values().stream().findFirst();
    }

    /**
     * The backend of the engine that runs the model.
     *
     * @throws FailureException {@link Failure.LoadFailed} saying which engine it needs and why it is missing
     */
    public Backend forModel(String id, String engine) {
        Backend backend = available.get(engine);
        if (backend != null) {
            return backend;
        }
        Unavailable missing = unavailable.get(engine);
        if (missing != null) {
            throw new FailureException(new Failure.LoadFailed(id, "model " + id + " needs the " + missing.title()
                    + ", which is not available: " + missing.reason()));
        }
        throw new FailureException(new Failure.LoadFailed(id, "no engine of this server runs model " + id
                + " (its engine: " + engine + ")"));
    }
}
