package io.rkllm.server.engine.contract;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What opening an engine gave: its backend, or why it has none; and what the start banner says of it. */
public sealed interface Opening {

    /** The start banner's lines about the engine. */
    List<String> banner();

    /** The backend its models load with, when the engine is available. */
    Optional<Backend> available();

    /** Opened now: its library is there and works. */
    record Opened(Backend backend, List<String> banner) implements Opening {
        public Opened {
            Objects.requireNonNull(backend, "backend");
            banner = List.copyOf(banner);
        }

        @Override
        public Optional<Backend> available() {
            return Optional.of(backend);
        }
    }

    /**
     * Opened when its first model loads (none is there yet): a board that serves other engines' models does not pay
     * for a library it may never use. A library that does not open then fails that model's load with the reason.
     */
    record Deferred(Backend backend, List<String> banner) implements Opening {
        public Deferred {
            Objects.requireNonNull(backend, "backend");
            banner = List.copyOf(banner);
        }

        @Override
        public Optional<Backend> available() {
            return Optional.of(backend);
        }
    }

    /**
     * Not available: its models fail to load with {@code reason}.
     *
     * @param reason why, with the fix
     * @param required the server must not start without it when it would serve nothing else: the configuration names
     *                 the engine's library (or forces its version), or, for an engine a board exists for, its models
     *                 are there; an engine turned off in the configuration is never required
     */
    record Unavailable(String reason, boolean required, List<String> banner) implements Opening {
        public Unavailable {
            Objects.requireNonNull(reason, "reason");
            banner = List.copyOf(banner);
        }

        @Override
        public Optional<Backend> available() {
            return Optional.empty();
        }
    }
}
