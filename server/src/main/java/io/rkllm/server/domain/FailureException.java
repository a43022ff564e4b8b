package io.rkllm.server.domain;

/** Carries a {@link Failure} up the call stack to the layer that answers the client. */
public final class FailureException extends RuntimeException {
    private final transient Failure failure;

    public FailureException(Failure failure) {
        super(failure.message(), null, false, false);
        this.failure = failure;
    }

    public FailureException(Failure failure, Throwable cause) {
        super(failure.message(), cause);
        this.failure = failure;
    }

    public Failure failure() {
        return failure;
    }
}
