package io.rkllm.server.engine;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.Backend;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The backends this server has, and those it has not with the reason (a library not installed): the application
 * decides which are available, the registry chooses one per model file when the model loads.
 */
public record Backends(List<Backend> available, List<Unavailable> unavailable) {

    /**
     * A backend that could not be opened.
     *
     * @param name what it is, as a user knows it ("the RKLLM runtime")
     * @param formats the file name endings of the models it would run
     * @param reason why it is not available, with the fix
     */
    public record Unavailable(String name, List<String> formats, String reason) {
        public Unavailable {
            formats = List.copyOf(formats);
        }
    }

    public Backends {
        available = List.copyOf(available);
        unavailable = List.copyOf(unavailable);
    }

    /** These backends, all available. */
    public static Backends of(Backend... backends) {
        return new Backends(List.of(backends), List.of());
    }

    /** The first available backend: what {@code /health} reports. */
    public Optional<Backend> primary() {
        return available.stream().findFirst();
    }

    /**
     * The backend that runs {@code file}.
     *
     * @throws FailureException {@link Failure.LoadFailed} saying which backend it needs and why it is missing
     */
    public Backend forModel(String id, Path file) {
        for (Backend backend : available) {
            if (backend.runs(file)) {
                return backend;
            }
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        for (Unavailable missing : unavailable) {
            if (missing.formats().stream().anyMatch(name::endsWith)) {
                throw new FailureException(new Failure.LoadFailed(id, "model " + id + " needs " + missing.name()
                        + ", which is not available: " + missing.reason()));
            }
        }
        throw new FailureException(new Failure.LoadFailed(id, "no engine of this server runs the model file " + file));
    }
}
