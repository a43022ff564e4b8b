package io.rkllm.server.engine;

import io.rkllm.server.engine.contract.BackendModel;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One model's places, queued jobs and running jobs, and which job may start next. Jobs start in queue order only
 * (by priority class, then FIFO: no job overtakes one queued before it in its class): the head starts when it may,
 * a generation while fewer than {@link #parallel()} generations run, anything else (an embedding request, the
 * worker's stop) only when nothing runs, and nothing starts beside it. One lock guards the places, the queue and
 * the running jobs together, so that a job is always counted as waiting or as running, never as neither (the
 * registry unloads a model that looks idle) and never as both (the queue limit).
 */
final class JobQueue {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final PriorityQueue<Job<?>> queue = new PriorityQueue<>();
    /** In the order they started. */
    private final Set<Job<?>> running = new LinkedHashSet<>();
    /** Places taken and not running: reserved, or queued. */
    private volatile int waiting;
    private volatile int runningCount;
    /**
     * Before the load declares it, places are counted as if this many generations could run (a place is taken as
     * the model is chosen, while it loads: several first requests of a model that decodes several at once are not
     * refused for the queue of a model that runs one).
     */
    private static final int PROVISIONAL_PARALLEL = 8;

    private volatile int parallel = 1;
    /** Whether the loaded model declared {@link #parallel}. */
    private volatile boolean declared;
    private boolean closed;
    /** A job ended or a place was given back since the worker last looked whether the model is idle. */
    private boolean lookIdle;

    /** How many generations may run at once: the loaded model's {@link BackendModel#parallelGenerations()}. */
    void parallel(int generations) {
        parallel = Math.max(1, generations);
        declared = true;
    }

    int parallel() {
        return parallel;
    }

    /**
     * Takes a place unless {@code maxWaiting} places already wait beyond the generations that could run now:
     * places taken and jobs running together stay within {@code maxWaiting + parallel()}, so that with N free
     * slots N requests arriving together all run at once, and {@code maxWaiting} more wait.
     */
    boolean reserve(int maxWaiting) {
        lock.lock();
        try {
            if (waiting + running.size() >= maxWaiting + (declared ? parallel : PROVISIONAL_PARALLEL)) {
                return false;
            }
            waiting++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A place given back unused. */
    void release() {
        lock.lock();
        try {
            waiting--;
            lookIdle = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues a job into its place; {@code admitted} runs first, under the lock, before the job can be taken. False
     * (and the place given back) once the queue was closed: the model is gone.
     */
    boolean offer(Job<?> job, Runnable admitted) {
        lock.lock();
        try {
            if (closed) {
                if (!(job instanceof StopJob)) {
                    waiting--;
                }
                return false;
            }
            admitted.run();
            queue.add(job);
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Takes a queued job out (cancelled while waiting), giving its place back; false when it was not queued. */
    boolean remove(Job<?> job) {
        lock.lock();
        try {
            if (!queue.remove(job)) {
                return false;
            }
            waiting--;
            lookIdle = true;
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for the next job that may start and moves it from the queue to the running jobs (a {@link StopJob} is
     * returned once nothing runs, and never counts as running). Returns null instead when a job ended or a place
     * was given back and the model has nothing queued or running any more: the worker tells the registry.
     */
    Job<?> next() throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                if (lookIdle && running.isEmpty()) {
                    lookIdle = false;
                    if (waiting == 0) {
                        return null;
                    }
                }
                Job<?> head = queue.peek();
                if (head != null && mayStart(head)) {
                    queue.poll();
                    if (!(head instanceof StopJob)) {
                        // running first, then waiting: a reader of the two counts never sees the job in neither
                        running.add(head);
                        runningCount = running.size();
                        waiting--;
                    }
                    return head;
                }
                changed.await();
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean mayStart(Job<?> head) {
        if (head instanceof Generation) {
            return running.size() < parallel && running.stream().allMatch(j -> j instanceof Generation);
        }
        return running.isEmpty();
    }

    /** A job that {@link #next()} returned has ended, on whichever thread ran it. */
    void ended(Job<?> job) {
        lock.lock();
        try {
            running.remove(job);
            runningCount = running.size();
            lookIdle = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * When a chat was just queued and more chats wait than generations could start now, the background
     * generation that started last and is not giving way yet, marked as giving way: Open WebUI's tasks never
     * delay a chat. Empty when the chat will run without it.
     */
    Optional<Generation> backgroundToPreempt() {
        lock.lock();
        try {
            long chatsWaiting = queue.stream().filter(j -> j instanceof Generation g && !g.background).count();
            if (chatsWaiting <= parallel - running.size()) {
                return Optional.empty();
            }
            Generation last = null;
            for (Job<?> job : running) {
                if (job instanceof Generation g && g.background && !g.preempted) {
                    last = g;
                }
            }
            if (last != null) {
                last.preempted = true;
            }
            return Optional.ofNullable(last);
        } finally {
            lock.unlock();
        }
    }

    /** The jobs waiting now, for cancelling them. */
    List<Job<?>> queued() {
        lock.lock();
        try {
            return new ArrayList<>(queue);
        } finally {
            lock.unlock();
        }
    }

    /** The jobs running now, in the order they started. */
    List<Job<?>> running() {
        lock.lock();
        try {
            return new ArrayList<>(running);
        } finally {
            lock.unlock();
        }
    }

    /** Closes the queue for good and takes out what still waits (each giving its place back). */
    List<Job<?>> close() {
        lock.lock();
        try {
            closed = true;
            List<Job<?>> left = new ArrayList<>();
            Job<?> job;
            while ((job = queue.poll()) != null) {
                if (!(job instanceof StopJob)) {
                    waiting--;
                    left.add(job);
                }
            }
            return left;
        } finally {
            lock.unlock();
        }
    }

    /** Places taken and not running: reserved or queued. */
    int waiting() {
        return waiting;
    }

    int runningCount() {
        return runningCount;
    }

    /** Nothing waiting and nothing running, read together. */
    boolean idle() {
        lock.lock();
        try {
            return waiting == 0 && running.isEmpty();
        } finally {
            lock.unlock();
        }
    }
}
