package io.rkllm.server.engine;

/** The model's queue holds its maximum number of waiting generations. */
public final class QueueFullException extends RuntimeException {
    private final int limit;

    public QueueFullException(String model, int limit) {
        super("the queue of model " + model + " is full (" + limit + " requests waiting)");
        this.limit = limit;
    }

    public int limit() {
        return limit;
    }
}
