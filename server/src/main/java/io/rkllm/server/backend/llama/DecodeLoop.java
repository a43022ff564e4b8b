package io.rkllm.server.backend.llama;

import io.rkllm.llama.Batch;
import io.rkllm.llama.DecodeStatus;
import io.rkllm.llama.KvCache;
import io.rkllm.llama.LlamaContext;
import io.rkllm.llama.LlamaException;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.Sampler;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEnd;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.StopReason;
import io.rkllm.server.engine.contract.cache.CachedConversation;
import io.rkllm.server.engine.contract.cache.Keys;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that runs every generation of a loaded GGUF model, however many threads ask at once (continuous
 * batching, as llama-server's slots): each step is one {@code llama_decode} of a batch holding the next token of
 * every sequence that is generating and, in the room left, the next chunk of the prompts still being read. A
 * sequence that ends frees its place at once; a waiting request takes it at the next step. The loop makes every
 * native call of the model and its context from the moment it starts (the worker only loaded them).
 *
 * <p>Each chat sequence keeps the tokens of its last run (its KV cells): a new prompt goes to the free sequence
 * sharing the longest prefix with it ({@link PrefixCachePolicy}), the cache is cut where they first differ and only
 * the rest is decoded. A background task runs in a spare sequence that starts from the best chat sequence's prefix
 * (a copy of its cells, no decode) and is emptied when the task ends, so no chat loses its cache to a title.
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
    private final int chatSequences;
    private final int scratch;
    private final int sequenceContext;
    private final SlotTable slots;
    private final PrefixCachePolicy policy;
    private final PromptTokenizer tokenizer;
    private final BlockingQueue<Runnable> commands = new LinkedBlockingQueue<>();
    private final Deque<SubmittedGeneration> waiting = new ArrayDeque<>();
    /** Requests whose runs gave their cells up for lack of room, until a run ends (first in line then). */
    private final Deque<SubmittedGeneration> postponed = new ArrayDeque<>();
    private final List<DecodingGeneration> active = new ArrayList<>();
    /** Conversations' states kept in memory after their sequence went to another; null when none are kept. */
    private final SavedPrompts saved;
    /** Commands to run once the next step has decoded (the loop's thread only). */
    private final List<Runnable> afterStep = new ArrayList<>();
    /** Commands to run once the next step's batch is made, right before its decode (the loop's thread only). */
    private final List<Runnable> beforeDecode = new ArrayList<>();
    private final Thread thread;
    private Batch batch;
    private volatile boolean stopping;
    /** Decode calls and decoded tokens, read by tests and logs from any thread. */
    private volatile long decodes;
    private volatile long decodedTokens;
    /** Decodes stopped by the abort callback: each threw a step's work away. */
    private volatile long abortedDecodes;
    private volatile boolean ended;
    private volatile int widest;
    /** Runs that gave their cells up to wait for room, for tests. */
    private volatile int postponements;

    /**
     * @param chatSequences sequences for conversations (the context has one more, for background tasks)
     * @param sequenceContext the most tokens one sequence may hold (the model's served context)
     */
    /** The model it decodes (for what the backend asks of its vocabulary). */
    LlamaModel model() {
        return model;
    }

    DecodeLoop(String id, LlamaModel model, LlamaContext context, int chatSequences, int sequenceContext) {
        this(id, model, context, chatSequences, sequenceContext, 0);
    }

    /**
     * @param savedBytes memory for conversations' KV states kept while their sequence serves another ({@link
     *                   SavedPrompts}); 0, or a library without {@code llama_state_seq_*}: none kept
     */
    DecodeLoop(String id, LlamaModel model, LlamaContext context, int chatSequences, int sequenceContext,
               long savedBytes) {
        this.saved = savedBytes > 0 && context.savesSequences() ? new SavedPrompts(savedBytes) : null;
        this.policy = new PrefixCachePolicy(context.cachePerSequence() ? PrefixCachePolicy.OWN_CACHES_COPY_GAIN : 1);
        this.id = id;
        this.model = model;
        this.context = context;
        this.chatSequences = chatSequences;
        this.scratch = chatSequences;
        this.sequenceContext = sequenceContext;
        this.slots = new SlotTable(chatSequences + 1);
        this.tokenizer = new PromptTokenizer(model);
        this.thread = Thread.ofPlatform().name("llama-decode-" + id).daemon(true).unstarted(this::run);
        this.thread.start();
    }

    /** Queues a request; its events come back on its own queue. A loop that has ended fails it at once. */
    void submit(SubmittedGeneration request) {
        if (ended) {
            request.end(new GenerationEnd.Failed("model " + id + " was unloaded"));
            return;
        }
        commands.add(new Admission(request, waiting));
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
        beforeNextDecode(() -> {
            int[] s = new int[batch.size()];
            for (int i = 0; i < s.length; i++) {
                s[i] = batch.sequences(i)[0];
            }
            sequences.complete(s);
        });
        return sequences;
    }

    /** Commands not yet taken by the loop (requests submitted while it is held, for tests). */
    int pendingCommands() {
        return commands.size();
    }

    /** How many runs so far waited for room in the shared KV cache. */
    int postponements() {
        return postponements;
    }

    /** The most sequences one decode carried so far. */
    int widestStep() {
        return widest;
    }

    long decodedTokens() {
        return decodedTokens;
    }

    long decodes() {
        return decodes;
    }

    /** Decodes stopped under way by a cancel (llama.cpp logs each as a failed decode). */
    long abortedDecodes() {
        return abortedDecodes;
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

    private void run() {
        try {
            batch = new Batch(context.batchSize(), 1);
            while (!stopping) {
                // requests a run's end put back in line are admitted without waiting for a command
                Runnable command = active.isEmpty() && waiting.isEmpty() ? commands.take() : commands.poll();
                while (command != null) {
                    command.run();
                    command = commands.poll();
                }
                if (stopping) {
                    break;
                }
                admitWaiting();
                try {
                    endCancelled();
                    if (!active.isEmpty()) {
                        step();
                        List<Runnable> after = List.copyOf(afterStep);
                        afterStep.clear();
                        after.forEach(Runnable::run);
                    }
                } catch (RuntimeException e) {
                    // a bug, not the user's: the runs of this step end, the loop and the model go on
                    LOG.error("model {}: a decode step failed", id, e);
                    for (DecodingGeneration r : List.copyOf(active)) {
                        abandon(r, "the run failed: " + e);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            LOG.error("model {}: the decode loop failed", id, t);
        } finally {
            ended = true;
            for (DecodingGeneration r : List.copyOf(active)) {
                abandon(r, "model " + id + " was unloaded");
            }
            drainCommands();
            waiting.addAll(postponed);
            postponed.clear();
            for (SubmittedGeneration r : waiting) {
                r.end(new GenerationEnd.Failed("model " + id + " was unloaded"));
            }
            waiting.clear();
            if (batch != null) {
                batch.close();
            }
            if (saved != null) {
                saved.close();
            }
            context.close();
            model.close();
        }
    }

    /** After the loop: requests still queued as commands end too (other commands are dropped). */
    private void drainCommands() {
        for (Runnable command = commands.poll(); command != null; command = commands.poll()) {
            if (command instanceof Admission admission) {
                admission.request().end(new GenerationEnd.Failed("model " + id
                        + " was unloaded"));
            }
        }
    }

    /** The command that gives the loop a request. */
    private record Admission(SubmittedGeneration request, Deque<SubmittedGeneration> waiting) implements Runnable {
        @Override
        public void run() {
            waiting.add(request);
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

    /** Gives waiting requests the free sequences, in their order; a request with no sequence free waits. */
    private void admitWaiting() {
        for (Iterator<SubmittedGeneration> it = postponed.iterator(); it.hasNext(); ) {
            SubmittedGeneration request = it.next();
            if (request.cancelled().isSet()) {
                it.remove();
                request.end(new GenerationEnd.Finished(StopReason.CANCELLED, GenerationStats.NONE,
                        0, Optional.empty(), ""));
            }
        }
        for (Iterator<SubmittedGeneration> it = waiting.iterator(); it.hasNext(); ) {
            SubmittedGeneration request = it.next();
            if (request.cancelled().isSet()) {
                it.remove();
                request.end(new GenerationEnd.Finished(StopReason.CANCELLED, GenerationStats.NONE,
                        0, Optional.empty(), ""));
                continue;
            }
            boolean admitted;
            try {
                admitted = admit(request);
            } catch (RuntimeException e) {
                LOG.warn("model {}: preparing the run failed: {}", id, e.toString());
                admitted = true;
                request.end(new GenerationEnd.Failed("preparing the run failed: "
                        + e.getMessage()));
            }
            if (admitted) {
                it.remove();
            }
        }
    }

    /** Starts a request in a sequence; false when none is free for it now. */
    private boolean admit(SubmittedGeneration request) {
        if (request.task() && slots.get(scratch).busy
                || !request.task() && slots.free(chatSequences).isEmpty()) {
            return false;
        }
        int[] whole = tokenizer.whole(request.text());
        if (whole.length == 0) {
            request.end(new GenerationEnd.Failed("the prompt is empty"));
            return true;
        }
        List<SlotTable.Slot> free = slots.free(chatSequences);
        PrefixCachePolicy.Decision decision = request.task() ? null : policy.decide(free.stream()
                .map(s -> s.held.view(s.lastUsed)).toList(), saved == null ? List.of() : saved.views(),
                new PrefixCachePolicy.Prompt(request.text(), whole), tokenizer);
        int[] prompt = decision == null ? whole : decision.tokens();
        if (prompt.length >= sequenceContext) {
            request.end(new GenerationEnd.TooLong(prompt.length, sequenceContext,
                    "the prompt is " + prompt.length + " tokens long; model " + id + " is served with a context of "
                            + sequenceContext + " tokens: shorten the conversation, or leave out tools or documents"));
            return true;
        }
        // the sampler first: one that cannot be made (a grammar llama.cpp refuses) fails the request before any
        // sequence is marked busy or cut
        boolean grammarNow = request.grammar().isPresent() && request.grammar().get().after().isEmpty();
        Sampler sampler = model.newSampler(grammarNow
                ? request.sampling().withGrammar(request.grammar().get().gbnf()) : request.sampling());
        try {
            if (request.sampling().penalises() && !grammarNow) { // a grammar's chain takes only what it sampled
                for (int i = Math.max(0, prompt.length - LlamaSampling.PENALTY_LAST_N); i < prompt.length; i++) {
                    sampler.accept(prompt[i]);
                }
            }
        } catch (RuntimeException e) {
            sampler.close();
            throw e;
        }
        SlotTable.Slot slot;
        int keep;
        Spelling spelling;
        KvCache kv = context.kv();
        if (request.task()) {
            slot = slots.get(scratch);
            keep = startTask(kv, slot, prompt);
            spelling = Spelling.blank(prompt.length);
        } else if (decision.restores()) {
            slot = free.get(decision.cache().slot());
            SavedPrompts.Entry entry = saved.get(decision.source());
            keep = decision.keep();
            spelling = spell(prompt, entry.held.spelling(), decision.shared());
            save(slot, entry);
            kv.remove(slot.sequence, -1, -1);
            if (!context.restoreSequence(slot.sequence, entry.state)) {
                LOG.warn("model {}: llama.cpp refused a saved state for sequence {}: its prompt is read again", id,
                        slot.sequence);
                kv.remove(slot.sequence, -1, -1);
                keep = 0;
            } else if (keep < entry.held.decoded() && !kv.remove(slot.sequence, keep, -1)) {
                kv.remove(slot.sequence, -1, -1);
                keep = 0;
            } else {
                saved.restored(entry, slots.nextTick());
            }
        } else {
            slot = free.get(decision.cache().slot());
            SlotTable.Slot source = free.get(decision.source());
            spelling = spell(prompt, source.held.spelling(), decision.shared());
            keep = decision.keep();
            if (decision.copies()) {
                save(slot);
                kv.remove(slot.sequence, -1, -1);
                kv.copy(source.sequence, slot.sequence, 0, keep);
            } else if (keep < slot.length()) {
                if (2 * keep < slot.length()) {
                    save(slot); // another conversation takes the sequence: this one is kept for its return
                }
                if (!kv.remove(slot.sequence, keep, -1)) {
                    // a model whose cache cannot lose a tail (recurrent layers) starts over
                    kv.remove(slot.sequence, -1, -1);
                    keep = 0;
                }
            }
        }
        slot.held.restart(prompt, keep, spelling);
        slot.busy = true;
        slot.conversation = null;
        slots.publish();
        active.add(new DecodingGeneration(request, slot, prompt, spelling, keep, sampler));
        LOG.debug("model {}: sequence {} reuses {} of {} prompt tokens{}", id, slot.sequence, keep, prompt.length,
                decision != null && decision.copies() ? " (copied from sequence " + free.get(decision.source())
                        .sequence + ")" : decision != null && decision.restores() ? " (a state saved in memory)" : "");
        return true;
    }

    /**
     * Keeps the conversation a sequence holds in memory before its cells go to another ({@link SavedPrompts}), when
     * it is long enough to be worth it and not kept already.
     */
    private void save(SlotTable.Slot slot) {
        save(slot, null);
    }

    /** The same, never dropping {@code spare}, the state about to go into the sequence. */
    private void save(SlotTable.Slot slot, SavedPrompts.Entry spare) {
        if (saved == null || slot.length() < SavedPrompts.MIN_TOKENS || saved.holds(slot.tokens())) {
            return;
        }
        long size = context.sequenceStateSize(slot.sequence);
        if (saved.save(slot.held.view(slot.lastUsed), size, into -> context.saveSequence(slot.sequence, into),
                slots.nextTick(), spare)) {
            LOG.debug("model {}: sequence {} ({} tokens, {} bytes) kept in memory; {} states, {} bytes", id,
                    slot.sequence, slot.length(), size, saved.size(), saved.bytes());
        }
    }

    /** States kept in memory, and how often they were kept and put back (tests, {@code /v1/models}). */
    record SavedStates(int count, long bytes, long saves, long restores) {
    }

    CompletableFuture<SavedStates> savedStates() {
        CompletableFuture<SavedStates> states = new CompletableFuture<>();
        commands.add(() -> states.complete(saved == null ? new SavedStates(0, 0, 0, 0)
                : new SavedStates(saved.size(), saved.bytes(), saved.saves(), saved.restores())));
        return states;
    }

    /** The prompt's text token by token: as far as the source spells it cleanly, its spelling; then the pieces. */
    private Spelling spell(int[] prompt, Spelling source, int shared) {
        int known = Math.min(shared, source.tokens());
        while (known > 0 && source.cut(known) < 0) {
            known--;
        }
        return Spelling.of(prompt, source, known, tokenizer::piece);
    }

    /** The spare sequence, emptied, then sharing the cells of the longest common prefix of any chat sequence. */
    private int startTask(KvCache kv, SlotTable.Slot slot, int[] prompt) {
        kv.remove(slot.sequence, -1, -1);
        slot.truncate(0);
        SlotTable.Slot best = null;
        int shared = 0;
        for (int i = 0; i < chatSequences; i++) {
            int common = PrefixCachePolicy.commonPrefix(slots.get(i).tokens(), prompt);
            if (common > shared) {
                best = slots.get(i);
                shared = common;
            }
        }
        int keep = Math.min(shared, prompt.length - 1);
        if (best != null && keep > 0) {
            kv.copy(best.sequence, slot.sequence, 0, keep);
            return keep;
        }
        return 0;
    }

    /** Runs that were cancelled between two decodes end now, their cache as far as it was decoded. */
    private void endCancelled() {
        for (DecodingGeneration r : List.copyOf(active)) {
            if (r.request.cancelled().isSet()) {
                finish(r, StopReason.CANCELLED);
            }
        }
    }

    /**
     * One decode of the next token of every generating sequence and the next prompt chunks that fit: the room goes to
     * the generating sequences first, then to the prompts in the order they came; the batch holds them in the order
     * of their sequences. With a KV cache each, llama.cpp computes together only sequences whose ids follow each other
     * in the batch (0, 1, 2...: {@code split_equal}); in the order they came, four chats could take four graph
     * computations a step instead of one, and decoded at a single chat's rate.
     */
    private void step() {
        batch.clear();
        List<DecodingGeneration> members = new ArrayList<>();
        int room = batch.capacity();
        for (DecodingGeneration r : active) {
            if (r.generating) {
                r.chunk = 1;
                members.add(r);
                room--;
            }
        }
        for (DecodingGeneration r : active) {
            if (r.generating || room <= 0) {
                continue;
            }
            r.chunk = Math.min(room, r.prompt.length - r.prefilled);
            room -= r.chunk;
            members.add(r);
        }
        members.sort(java.util.Comparator.comparingInt(r -> r.slot.sequence));
        for (DecodingGeneration r : members) {
            if (r.generating) {
                r.output = batch.add(r.lastToken, r.position(), r.slot.sequence, true);
                continue;
            }
            r.output = -1;
            for (int i = 0; i < r.chunk; i++) {
                int index = r.prefilled + i;
                boolean last = index == r.prompt.length - 1;
                int at = batch.add(r.prompt[index], r.position() + i, r.slot.sequence, last);
                if (last) {
                    r.output = at;
                }
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        StepAbort abort = new StepAbort(members.stream().map(r -> r.request.cancelled()).toList(),
                members.stream().anyMatch(r -> !r.generating));
        List<Runnable> before = List.copyOf(beforeDecode);
        beforeDecode.clear();
        before.forEach(Runnable::run);
        DecodeStatus status;
        try {
            // a step of generated tokens alone is never stopped under way: it goes without ggml's abort check
            status = abort.readsPrompt() ? context.decode(batch, abort) : context.decode(batch);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // an input the binding refuses before llama.cpp sees it: these runs cannot go on, the others can
            LOG.warn("model {}: decode refused: {}", id, e.getMessage());
            for (DecodingGeneration r : members) {
                fail(r, "the run could not be decoded: " + e.getMessage());
            }
            return;
        } catch (LlamaException e) {
            // build 4916 reports a full cache as an error ("failed to prepare ubatch"), later builds as NO_KV_SLOT
            LOG.debug("model {}: decode failed: {}", id, e.getMessage());
            outOfRoom(members, e.getMessage());
            return;
        }
        decodes++;
        switch (status) {
            case ABORTED -> {
                abortedDecodes++;
                for (DecodingGeneration r : members) {
                    if (r.request.cancelled().isSet()) {
                        finish(r, StopReason.CANCELLED);
                    }
                }
                return;
            }
            case NO_KV_SLOT -> {
                outOfRoom(members, "the KV cache is full");
                return;
            }
            case OK -> {
                decodedTokens += batch.size();
                widest = Math.max(widest, members.size());
            }
        }
        for (DecodingGeneration r : members) {
            if (r.generating) {
                r.slot.held.decodedPending(r.lastToken);
            } else {
                for (int i = 0; i < r.chunk; i++) {
                    int index = r.prefilled + i;
                    r.slot.held.decodedPrompt(r.prompt[index], r.spelling.textOf(index),
                            r.spelling.clean()[index + 1]);
                }
                r.prefilled += r.chunk;
            }
        }
        for (DecodingGeneration r : members) {
            if (r.request.cancelled().isSet()) {
                // cancelled while the step was decoded: its cells keep the step's tokens (as its held sequence
                // says), and what the step would give it next is dropped
                finish(r, StopReason.CANCELLED);
            } else if (r.output >= 0 && (r.generating || r.prefilled == r.prompt.length)) {
                try {
                    sample(r);
                } catch (RuntimeException e) {
                    LOG.warn("model {}: sampling failed: {}", id, e.toString());
                    if (active.contains(r)) {
                        abandon(r, "the run failed: " + e.getMessage());
                    }
                }
            }
        }
    }

    private void sample(DecodingGeneration r) {
        int token;
        try {
            token = r.sampler.sample(context, r.output);
        } catch (LlamaException e) {
            // a grammar that leaves no token: the answer so far is not what was asked for, and cannot become it
            fail(r, "the model could not go on under the answer's grammar: " + e.getMessage());
            return;
        }
        if (r.firstToken == 0) {
            r.firstToken = System.nanoTime();
        }
        if (model.isEndOfGeneration(token)) {
            r.endToken = token;
            finish(r, StopReason.END);
            return;
        }
        r.generated++;
        byte[] piece = model.tokenToPiece(token, r.request.preserved().contains(token));
        String text = r.utf8.add(piece);
        r.slot.held.sampled(token, text, r.utf8.whole(), piece.length == 0);
        if (!text.isEmpty()) {
            r.answer.append(text);
            r.request.text(text, r.generated);
        }
        r.lastToken = token;
        r.generating = true;
        if (r.grammarLater.isPresent() && reasoningEnded(r, text.length()) && !startGrammar(r)) {
            return;
        }
        if (r.request.maxTokens() > 0 && r.generated >= r.request.maxTokens()
                || r.position() + 1 >= sequenceContext) {
            finish(r, StopReason.LENGTH);
        }
    }

    /**
     * The reasoning has ended: from the next token on, the answer follows its grammar. The chain starts over (its
     * penalties forget the reasoning), as the grammar starts at the answer's beginning.
     */
    private boolean startGrammar(DecodingGeneration r) {
        AnswerGrammar grammar = r.grammarLater.orElseThrow();
        r.grammarLater = Optional.empty();
        Sampler constrained;
        try {
            constrained = model.newSampler(r.request.sampling().withGrammar(grammar.gbnf()));
        } catch (RuntimeException e) {
            fail(r, "the answer's grammar could not be set up: " + e.getMessage());
            return false;
        }
        r.sampler.close();
        r.sampler = constrained;
        return true;
    }

    /** Whether the text just added to the answer completes the reasoning's closing tag. */
    private static boolean reasoningEnded(DecodingGeneration r, int added) {
        String end = r.grammarLater.orElseThrow().after().orElseThrow();
        return added > 0 && r.answer.indexOf(end, Math.max(0, r.answer.length() - added - end.length() + 1)) >= 0;
    }

    /** Frees the cells of the least recently used idle chat sequence; false when there is none. */
    private boolean evictIdle() {
        Optional<SlotTable.Slot> idle = slots.evictable(chatSequences);
        if (idle.isEmpty()) {
            return false;
        }
        SlotTable.Slot slot = idle.get();
        LOG.debug("model {}: the KV cache is full: sequence {} ({} tokens) emptied", id, slot.sequence, slot.length());
        save(slot);
        context.kv().remove(slot.sequence, -1, -1);
        slot.truncate(0);
        slots.holds(slot, null);
        return true;
    }

    /**
     * The shared KV cache had no room for this step. Its cells go, in this order: those of the least recently used
     * idle sequence; those of the runs still reading their prompts, which wait, their requests first in line, until
     * a run ends (while others generate); else a run ends: the generating run holding the most cells at its length,
     * or, when every run is still reading and none can wait for another, the last admitted one fails.
     */
    private void outOfRoom(List<DecodingGeneration> members, String why) {
        if (evictIdle()) {
            return;
        }
        List<DecodingGeneration> reading = members.stream().filter(r -> !r.generating).toList();
        boolean othersGenerate = active.stream().anyMatch(r -> r.generating);
        if (!reading.isEmpty() && othersGenerate) {
            for (DecodingGeneration r : reading.reversed()) {
                postpone(r);
            }
            return;
        }
        if (othersGenerate) {
            DecodingGeneration largest = members.stream().filter(r -> r.generating)
                    .max(java.util.Comparator.comparingInt(r -> r.slot.length())).orElseThrow();
            LOG.debug("model {}: the KV cache is full ({}): sequence {} ends its answer", id, why,
                    largest.slot.sequence);
            finish(largest, StopReason.LENGTH);
            return;
        }
        DecodingGeneration last = reading.getLast();
        if (reading.size() > 1) {
            postpone(last);
            return;
        }
        fail(last, "the context of model " + id + " is full (" + why + "): the prompts of its parallel"
                + " conversations do not fit together; retry, or serve it with a longer engines.llama.context");
    }

    /**
     * A run still reading its prompt gives its cells up and its request waits, first in line, for a run to end: the
     * shared cache has no room for it now.
     */
    private void postpone(DecodingGeneration r) {
        LOG.debug("model {}: the KV cache is full: sequence {} waits for a run to end", id, r.slot.sequence);
        context.kv().remove(r.slot.sequence, -1, -1);
        r.slot.truncate(0);
        active.remove(r);
        r.sampler.close();
        r.slot.busy = false;
        slots.holds(r.slot, null);
        postponed.addFirst(r.request);
        postponements++;
    }

    private void finish(DecodingGeneration r, StopReason reason) {
        String rest = r.utf8.flush();
        r.slot.held.endText(rest);
        if (r.endToken >= 0) {
            // held undecoded, as the last of an answer: a follow-up whose template ends the answer with this token's
            // text decodes it as its first new token
            r.slot.held.sampled(r.endToken, tokenizer.text(r.endToken), true, false);
        }
        if (!rest.isEmpty()) {
            r.answer.append(rest);
            r.request.text(rest, r.generated);
        }
        long now = System.nanoTime();
        long first = r.firstToken == 0 ? now : r.firstToken;
        GenerationStats stats = new GenerationStats((first - r.admitted) / 1e6, r.prefilled - r.keep, (now - first) / 1e6,
                r.generated);
        release(r, reason == StopReason.CANCELLED ? null : conversation(r));
        Optional<String> prefilled = r.keep == 0 && !r.request.task() && r.prefilled == r.prompt.length
                ? Optional.of(r.request.text()) : Optional.empty();
        r.request.end(new GenerationEnd.Finished(reason, stats, r.keep, prefilled,
                "sequence " + r.slot.sequence));
    }

    /**
     * Ends a run after an unexpected failure: its sequence is emptied (what the cache holds is not known for sure),
     * and the run gets its end whatever else fails.
     */
    private void abandon(DecodingGeneration r, String message) {
        try {
            context.kv().remove(r.slot.sequence, -1, -1);
            r.slot.truncate(0);
        } catch (RuntimeException e) {
            LOG.warn("model {}: emptying sequence {} failed: {}", id, r.slot.sequence, e.toString());
        }
        try {
            fail(r, message);
        } catch (RuntimeException e) {
            active.remove(r);
            r.slot.busy = false;
            r.request.end(new GenerationEnd.Failed(message));
        }
    }

    private void fail(DecodingGeneration r, String message) {
        release(r, null);
        r.request.end(new GenerationEnd.Failed(message));
    }

    private void release(DecodingGeneration r, CachedConversation held) {
        // a run's end is what postponed requests wait for: its sequence's cells may go to them now
        while (!postponed.isEmpty()) {
            waiting.addFirst(postponed.removeLast());
        }
        active.remove(r);
        r.sampler.close();
        SlotTable.Slot slot = r.slot;
        slot.busy = false;
        slot.lastUsed = slots.nextTick();
        if (r.request.task()) {
            context.kv().remove(slot.sequence, -1, -1);
            slot.truncate(0);
        }
        slots.holds(slot, held);
    }

    /** The conversation the sequence holds after a chat run, in the words the pipeline reads. */
    private CachedConversation conversation(DecodingGeneration r) {
        ChatPrompt prompt = r.request.prompt();
        if (r.request.task()) {
            return null;
        }
        Optional<String> answer = prompt.identity().answerKey().of(r.answer.toString());
        if (answer.isEmpty()) {
            return null;
        }
        List<String> turns = new ArrayList<>(prompt.identity().trim().kept(prompt.identity().history()));
        turns.addAll(prompt.identity().newKeys());
        turns.add(answer.get());
        return new CachedConversation(prompt.setup().systemPrompt(), prompt.identity().trim(),
                Keys.digest(prompt.identity().trim().leftOut(prompt.identity().history())), turns, r.slot.length(),
                prompt.setup().tools().orElse(""));
    }

    /** One generation being decoded in a sequence. */
    private static final class DecodingGeneration {
        final SubmittedGeneration request;
        final SlotTable.Slot slot;
        final int[] prompt;
        /** The prompt's text token by token, which the sequence holds as it decodes them. */
        final Spelling spelling;
        final int keep;
        Sampler sampler;
        /** A grammar that starts after the reasoning's end, until it does. */
        Optional<AnswerGrammar> grammarLater;
        final Utf8Pieces utf8 = new Utf8Pieces();
        final StringBuilder answer = new StringBuilder();
        final long admitted = System.nanoTime();
        int prefilled;
        int chunk;
        int output = -1;
        int lastToken = -1;
        /** The end-of-generation token that ended the answer, or -1. */
        int endToken = -1;
        boolean generating;
        int generated;
        long firstToken;

        DecodingGeneration(SubmittedGeneration request, SlotTable.Slot slot, int[] prompt, Spelling spelling, int keep, Sampler sampler) {
            this.request = request;
            this.slot = slot;
            this.prompt = prompt;
            this.spelling = spelling;
            this.keep = keep;
            this.prefilled = keep;
            this.sampler = sampler;
            this.grammarLater = request.grammar().filter(g -> g.after().isPresent());
        }

        /** The position of the next token to decode: what the sequence holds. */
        int position() {
            return slot.length();
        }
    }
}
