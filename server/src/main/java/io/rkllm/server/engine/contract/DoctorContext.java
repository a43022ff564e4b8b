package io.rkllm.server.engine.contract;

import io.rkllm.server.models.ModelDescriptor;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * What {@code doctor} tells an engine besides its setup, for the engine's own checks of the machine.
 *
 * @param machine where {@code /sys}, {@code /dev} and {@code /etc} are (a fake tree in tests)
 * @param serviceUser the user the service runs as, whose access to the engine's devices matters
 * @param templated whether the server frames a model's prompts with a chat template of its own: the pipeline's
 *     decision, which a backend otherwise only sees in each prompt it is given
 */
public record DoctorContext(SystemRoots machine, String serviceUser, Predicate<ModelDescriptor> templated) {

    public DoctorContext {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(serviceUser, "serviceUser");
        Objects.requireNonNull(templated, "templated");
    }
}
