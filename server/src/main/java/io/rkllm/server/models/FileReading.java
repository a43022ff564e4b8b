package io.rkllm.server.models;

import java.util.Objects;
import java.util.Optional;

/** What an engine's {@link ModelFormat} made of one model file. */
public sealed interface FileReading {

    /**
     * A model: its facts, and the context the engine serves it with when its file says (else the sidecar's, its
     * name's, or the default).
     */
    record Read(ModelFacts facts, Optional<ContextChoice> context) implements FileReading {
        public Read {
            Objects.requireNonNull(facts, "facts");
            Objects.requireNonNull(context, "context");
        }
    }

    /** Not a model of its own (a split model's part without its first, a vision projector): a warning says why. */
    record Skipped(String warning) implements FileReading {
    }

    /** Not a usable model file (damaged, truncated): an error says why. */
    record Refused(String error) implements FileReading {
    }
}
