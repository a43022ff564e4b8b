package io.rkllm.server.domain;

import java.util.Objects;

/**
 * What went wrong with a request, in the server's own terms. The engine and the pipeline report these; the
 * HTTP layer alone decides what each becomes on the wire (status, error type, body shape per API).
 */
public sealed interface Failure {

    /** A sentence for the client, naming what to change where the client can change something. */
    String message();

    /** The request asks for something the server cannot do with it (a missing field, an unsupported option). */
    record InvalidRequest(String param, String code, String message) implements Failure {
        public InvalidRequest {
            Objects.requireNonNull(message, "message");
        }

        public static InvalidRequest of(String param, String message) {
            return new InvalidRequest(param, null, message);
        }
    }

    /** No model of that name or alias. */
    record ModelNotFound(String model, String message) implements Failure {
    }

    /** The prompt does not fit the model's context, even trimmed. */
    /** @param param the request's field that holds it: {@code messages}, or {@code prompt} for a raw prompt */
    record ContextTooLong(int promptTokens, int contextTokens, String param, String message) implements Failure {
    }

    /** The model's queue holds its maximum of waiting requests. */
    record QueueFull(String model, int limit, String message) implements Failure {
    }

    /** The model could not be loaded (init failed, no room in time, the server is stopping). */
    record LoadFailed(String model, String message) implements Failure {
    }

    /**
     * Loading the model was not attempted: the memory check says it may not fit ({@code rkllm_init} of runtime
     * 1.3.0 crashes the whole process when memory runs out instead of failing).
     *
     * @param neededMb what the model is expected to take
     * @param availableMb what the check found free for it
     */
    record InsufficientMemory(String model, long neededMb, long availableMb, String message) implements Failure {
    }

    /** The model is giving way to another one and takes no new requests. */
    record ModelUnloading(String model, String message) implements Failure {
    }

    /** The request ended before its answer did, for {@code reason}. */
    record Cancelled(CancelReason reason, String message) implements Failure {
    }

    /** The model's answer did not meet the request's contract (JSON, a schema, a tool call), even when asked twice. */
    record InvalidOutput(String message) implements Failure {
    }

    /** The runtime reported an error during the run (the model stays loaded). */
    record RuntimeFailed(String message) implements Failure {
    }
}
