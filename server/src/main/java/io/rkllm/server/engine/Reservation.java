package io.rkllm.server.engine;

import io.rkllm.server.engine.contract.ChatPrompt;

/**
 * A place in a model's queue, taken before the work is known so that the caller can commit its response (a
 * stream's headers) first: the place keeps its FIFO position. Submit work into it once, or release it.
 */
public final class Reservation {
    private final ModelIntake intake;
    private final Priority priority;
    private final long place;
    private boolean used;

    Reservation(ModelIntake intake, Priority priority, long place) {
        this.intake = intake;
        this.priority = priority;
        this.place = place;
    }

    /**
     * Queues the generation. {@code maxTokens} &gt; 0 limits the output on both ABIs: per run on 1.3, by
     * counting tokens and aborting on 1.2.
     */
    public synchronized Generation submit(ChatPrompt prompt, int maxTokens) {
        if (used) {
            throw new IllegalStateException("reservation already used");
        }
        used = true;
        return intake.enqueue(new Generation(intake.name(), intake.turns(), intake::dequeue, priority, place, prompt,
                maxTokens));
    }

    /** Queues an embedding request: its prompts run one after the other on the model's handle. */
    public synchronized Embedding submit(EmbeddingWork work) {
        if (used) {
            throw new IllegalStateException("reservation already used");
        }
        used = true;
        return intake.enqueue(new Embedding(intake.name(), intake.turns(), intake::dequeue, priority, place, work,
                intake.runtime()));
    }

    /** Gives the place back when the work will never be submitted; nothing once it was. */
    public synchronized void release() {
        if (!used) {
            used = true;
            intake.released();
        }
    }
}
