package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaContext;
import io.rkllm.llama.LlamaModel;
import io.rkllm.server.engine.contract.GenerationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that runs every generation of a loaded GGUF model, however many threads ask at once (continuous
 * batching, as llama-server's slots): each step is one {@code llama_decode} of a batch holding the next token of
 * every sequence that is generating and, in the room left, the next chunk of the prompts still being read
 * ({@link DecodeStep}). A sequence that ends frees its place at once ({@link RunEnds}); a waiting request takes it
 * at the next step ({@link Admissions}). The loop makes every native call of the model and its context from the
 * moment it starts (the worker only loaded them).
 *
 * <p>Each chat sequence keeps the tokens of its last run (its KV cells): a new prompt goes to the free sequence
 * sharing the longest prefix with it ({@link PrefixCachePolicy}), the cache is cut where they first differ and only
 * the rest is decoded; a conversation whose sequence goes to another is kept in memory ({@link ConversationKeeper}).
 * A background task runs in a spare sequence that starts from the best chat sequence's prefix (a copy of its cells,
 * no decode) and is emptied when the task ends, so no chat loses its cache to a title.
 *
 * <p>A cancelled run (its stop string came, its client went) ends at a step's end: the step under way is decoded
 * for every run in it, the cancelled run's cells keep what it decoded (its held sequence says so, for the next
 * prompt's reuse) and what it would sample next is dropped. Only a prompt chunk of cancelled runs alone is stopped
 * inside its decode ({@link StepAbort}).
 */
final class DecodeLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DecodeLoop.class);
    private static final Runnable WAKE = () -> { };

    private final String id;
    private final LlamaModel model;
    private final LlamaContext context;
    private final SlotTable slots;
    private final BlockingQueue<Runnable> commands = new LinkedBlockingQueue<>();
    private final LoopRuns runs = new LoopRuns();
    private final ConversationKeeper keeper;
    private final Admissions admissions;
    private final RunEnds ends;
    private final DecodeStep step;
    /** Commands to run once the next step has decoded (the loop's thread only). */
    private final List<Runnable> afterStep = new ArrayList<>();
    /** Commands to run once the next step's batch is made, right before its decode (the loop's thread only). */
    private final List<Runnable> beforeDecode = new ArrayList<>();
    /** Commands to run once the loop is idle and has made memory ready for the next save (the loop's thread only). */
    private final List<Runnable> whenIdle = new ArrayList<>();
    /** {@link #runBeforeDecode}, made once: the step runs it before every decode. */
    private final Runnable beforeDecodeHooks = this::runBeforeDecode;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean ended;

    DecodeLoop(String id, LlamaModel model, LlamaContext context, int chatSequences, int sequenceContext) {
        this(id, model, context, chatSequences, sequenceContext, 0);
    }

    /**
     * @param chatSequences sequences for conversations (the context has one more, for background tasks)
     * @param sequenceContext the most tokens one sequence may hold (the model's served context)
     * @param savedBytes memory for conversations' KV states kept while their sequence serves another ({@link
     *                   SavedPrompts}); 0, or a library without {@code llama_state_seq_*}: none kept
     */
    DecodeLoop(String id, LlamaModel model, LlamaContext context, int chatSequences, int sequenceContext,
               long savedBytes) {
        this.id = id;
        this.model = model;
        this.context = context;
        this.slots = new SlotTable(chatSequences + 1);
        PromptTokenizer tokenizer = new PromptTokenizer(model);
        this.keeper = new ConversationKeeper(id, context, slots, savedBytes, chatSequences);
        this.ends = new RunEnds(id, context, slots, chatSequences, tokenizer, keeper, runs);
        this.admissions = new Admissions(id, model, context, slots, chatSequences, sequenceContext, tokenizer, keeper,
                runs);
        this.step = new DecodeStep(id, model, context, sequenceContext, runs, ends, tokenizer);
        this.thread = Thread.ofPlatform().name("llama-decode-" + id).daemon(true).unstarted(this::run);
        this.thread.start();
    }

    /** The model it decodes (for what the backend asks of its vocabulary). */
    LlamaModel model() {
        return model;
    }

    /** Queues a request; its events come back on its own queue. A loop that has ended fails it at once. */
    void submit(SubmittedGeneration request) {
        if (ended) {
            request.end(GenerationEvent.failed("model " + id + " was unloaded"));
            return;
        }
        commands.add(new Admission(request, runs));
        if (ended) {
            // ended between the check and the add: the loop's last drain may have missed it
            drainCommands();
        }
    }

    /** Whether the loop's thread has stopped (unloaded, or failed): its model serves nothing more. */
    boolean ended() {
        return ended;
    }

    /**
     * Cancels a request from any thread: before it runs it never starts; while it runs it ends at the end of the step
     * under way, or at once when that step is a prompt chunk of cancelled runs only ({@link StepAbort}).
     */
    void cancel(SubmittedGeneration request) {
        request.cancelled().set();
        context.recheckAbort(); // a prompt step of its runs alone stops now, not at the watcher's next turn
        commands.add(WAKE);
    }

    SlotTable slots() {
        return slots;
    }

    /** Runs {@code command} on the loop's thread between two steps (tests hold the loop with it). */
    void execute(Runnable command) {
        commands.add(command);
    }

    /**
     * Runs {@code command} on the loop's thread right after the next decode step (tests act on a run that is under
     * way with it, however fast the model and however slow the test's own thread).
     */
    void afterNextStep(Runnable command) {
        commands.add(() -> afterStep.add(command));
    }

    /**
     * Runs {@code command} on the loop's thread when the next step's batch is made, right before its decode: a
     * cancel there is one that comes from another thread while the step decodes, whatever the timing (tests).
     */
    void beforeNextDecode(Runnable command) {
        commands.add(() -> beforeDecode.add(command));
    }

    /** The sequence of each entry of the next step's batch, in the batch's order (tests). */
    CompletableFuture<int[]> nextBatchSequences() {
        CompletableFuture<int[]> sequences = new CompletableFuture<>();
        beforeNextDecode(() -> sequences.complete(step.batchSequences()));
        return sequences;
    }

    /** Commands not yet taken by the loop (requests submitted while it is held, for tests). */
    int pendingCommands() {
        return commands.size();
    }

    /** How many runs so far waited for room in the shared KV cache. */
    int postponements() {
        return ends.postponements();
    }

    /** The most sequences one decode carried so far. */
    int widestStep() {
        return step.widest();
    }

    long decodedTokens() {
        return step.decodedTokens();
    }

    long decodes() {
        return step.decodes();
    }

    /** Decodes stopped under way by a cancel (llama.cpp logs each as a failed decode). */
    long abortedDecodes() {
        return step.abortedDecodes();
    }

    /**
     * What a sequence holds by the loop's books and in the KV cache, read on the loop's thread between two steps
     * (tests check that they agree).
     */
    CompletableFuture<Cells> cells(int sequence) {
        CompletableFuture<Cells> cells = new CompletableFuture<>();
        commands.add(() -> cells.complete(new Cells(slots.get(sequence).length(),
                context.kv().maxPosition(sequence) + 1)));
        return cells;
    }

    /**
     * @param held the tokens the sequence's {@link HeldSequence} says its cells hold
     * @param cached the cells the KV cache holds for it (its last position + 1)
     */
    record Cells(int held, int cached) {
    }

    /**
     * States kept in memory, how often they were kept (how many of those into memory made ready while the loop was
     * idle) and put back (tests).
     */
    record SavedStates(int count, long bytes, long saves, long readySaves, long restores) {
    }

    CompletableFuture<SavedStates> savedStates() {
        CompletableFuture<SavedStates> states = new CompletableFuture<>();
        commands.add(() -> states.complete(keeper.store()
                .map(s -> new SavedStates(s.size(), s.bytes(), s.saves(), s.readySaves(), s.restores()))
                .orElse(new SavedStates(0, 0, 0, 0, 0))));
        return states;
    }

    /** The bytes made ready for the next save once the loop is next idle, with nothing queued to stop it (tests). */
    CompletableFuture<Long> readyWhenIdle() {
        CompletableFuture<Long> ready = new CompletableFuture<>();
        commands.add(() -> whenIdle.add(() -> ready.complete(keeper.store().map(SavedPrompts::readyBytes).orElse(0L))));
        return ready;
    }

    private void run() {
        try {
            step.open();
            while (!stopping) {
                // requests a run's end put back in line are admitted without waiting for a command
                Runnable command = commands.poll();
                if (command == null && runs.active.isEmpty() && runs.waiting.isEmpty()) {
                    keeper.prepare(() -> !commands.isEmpty()); // idle: memory for the next save, until one comes
                    runHooks(whenIdle);
                    command = commands.take();
                }
                while (command != null) {
                    command.run();
                    command = commands.poll();
                }
                if (stopping) {
                    break;
                }
                admissions.admitWaiting();
                try {
                    ends.endCancelled();
                    if (!runs.active.isEmpty()) {
                        step.run(beforeDecodeHooks);
                        runHooks(afterStep);
                    }
                } catch (RuntimeException e) {
                    // a bug, not the user's: the runs of this step end, the loop and the model go on
                    LOG.error("model {}: a decode step failed", id, e);
                    for (DecodingGeneration r : List.copyOf(runs.active)) {
                        ends.abandon(r, "the run failed: " + e);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            LOG.error("model {}: the decode loop failed", id, t);
        } finally {
            ended = true;
            for (DecodingGeneration r : List.copyOf(runs.active)) {
                ends.abandon(r, "model " + id + " was unloaded");
            }
            drainCommands();
            runs.waiting.addAll(runs.postponed);
            runs.postponed.clear();
            for (SubmittedGeneration r : runs.waiting) {
                r.end(GenerationEvent.failed("model " + id + " was unloaded"));
            }
            runs.waiting.clear();
            step.close();
            keeper.close();
            context.close();
            model.close();
        }
    }

    private void runBeforeDecode() {
        runHooks(beforeDecode);
    }

    /** Runs and forgets the hooks queued (a hook may queue the next one: it runs next time). */
    private static void runHooks(List<Runnable> hooks) {
        if (hooks.isEmpty()) {
            return;
        }
        List<Runnable> now = List.copyOf(hooks);
        hooks.clear();
        now.forEach(Runnable::run);
    }

    /** After the loop: requests still queued as commands end too (other commands are dropped). */
    private void drainCommands() {
        for (Runnable command = commands.poll(); command != null; command = commands.poll()) {
            if (command instanceof Admission admission) {
                admission.request().end(GenerationEvent.failed("model " + id
                        + " was unloaded"));
            }
        }
    }

    /** The command that gives the loop a request. */
    private record Admission(SubmittedGeneration request, LoopRuns runs) implements Runnable {
        @Override
        public void run() {
            runs.waiting.add(request);
        }
    }

    /** Stops the loop (what runs fails as unloaded) and frees the context and the model, on the loop's thread. */
    @Override
    public void close() {
        commands.add(() -> stopping = true);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
