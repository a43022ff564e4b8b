package io.rkllm.server.backend.llama;

import io.rkllm.llama.Batch;
import io.rkllm.llama.DecodeStatus;
import io.rkllm.llama.LlamaContext;
import io.rkllm.llama.LlamaException;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.Sampler;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.StopReason;
import io.rkllm.server.engine.contract.TokenLogprob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code llama_decode} of the next token of every generating sequence and the next prompt chunks that fit, then
 * a token sampled for each run that has read its whole prompt: its text goes to the run's reader at once. On the
 * decode loop's thread only, which also makes its batch.
 */
final class DecodeStep implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DecodeStep.class);
    private static final Comparator<DecodingGeneration> BY_SEQUENCE = Comparator.comparingInt(r -> r.slot.sequence);

    private final String id;
    private final LlamaModel model;
    private final LlamaContext context;
    private final int sequenceContext;
    private final LoopRuns runs;
    private final RunEnds ends;
    private final PromptTokenizer tokenizer;
    private Batch batch;
    /** Decode calls and decoded tokens, read by tests and logs from any thread. */
    private volatile long decodes;
    private volatile long decodedTokens;
    /** Decodes stopped by the abort callback: each threw a step's work away. */
    private volatile long abortedDecodes;
    private volatile int widest;

    DecodeStep(String id, LlamaModel model, LlamaContext context, int sequenceContext, LoopRuns runs, RunEnds ends,
               PromptTokenizer tokenizer) {
        this.id = id;
        this.tokenizer = tokenizer;
        this.model = model;
        this.context = context;
        this.sequenceContext = sequenceContext;
        this.runs = runs;
        this.ends = ends;
    }

    /** Makes the batch, on the loop's thread (the loop makes every native call from the moment it starts). */
    void open() {
        batch = new Batch(context.batchSize(), 1);
    }

    /**
     * The step: the room goes to the generating sequences first, then to the prompts in the order they came; the
     * batch holds them in the order of their sequences. With a KV cache each, llama.cpp computes together only
     * sequences whose ids follow each other in the batch (0, 1, 2...: {@code split_equal}); in the order they came,
     * four chats could take four graph computations a step instead of one, and decoded at a single chat's rate.
     *
     * @param beforeDecode what to run once the batch is made, right before its decode (tests' hooks)
     */
    void run(Runnable beforeDecode) {
        batch.clear();
        List<DecodingGeneration> members = members();
        fill(members);
        if (batch.isEmpty()) {
            return;
        }
        boolean readsPrompt = false;
        for (DecodingGeneration r : members) {
            readsPrompt |= !r.generating;
        }
        beforeDecode.run();
        DecodeStatus status;
        try {
            // a step of generated tokens alone is never stopped under way: it goes without ggml's abort check
            status = readsPrompt ? context.decode(batch, new StepAbort(
                    members.stream().map(r -> r.request.cancelled()).toList())) : context.decode(batch);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // an input the binding refuses before llama.cpp sees it: these runs cannot go on, the others can
            LOG.warn("model {}: decode refused: {}", id, e.getMessage());
            for (DecodingGeneration r : members) {
                ends.fail(r, "the run could not be decoded: " + e.getMessage());
            }
            return;
        } catch (LlamaException e) {
            // build 4916 reports a full cache as an error ("failed to prepare ubatch"), later builds as NO_KV_SLOT
            LOG.debug("model {}: decode failed: {}", id, e.getMessage());
            ends.outOfRoom(members, e.getMessage());
            return;
        }
        decodes++;
        switch (status) {
            case ABORTED -> {
                abortedDecodes++;
                for (DecodingGeneration r : members) {
                    if (r.request.cancelled().isSet()) {
                        ends.finish(r, StopReason.CANCELLED);
                    }
                }
                return;
            }
            case NO_KV_SLOT -> {
                ends.outOfRoom(members, "the KV cache is full");
                return;
            }
            case OK -> {
                decodedTokens += batch.size();
                widest = Math.max(widest, members.size());
            }
        }
        decoded(members);
        for (DecodingGeneration r : members) {
            if (r.request.cancelled().isSet()) {
                // cancelled while the step was decoded: its cells keep the step's tokens (as its held sequence
                // says), and what the step would give it next is dropped
                ends.finish(r, StopReason.CANCELLED);
            } else if (r.output >= 0 && (r.generating || r.prefilled == r.prompt.length)) {
                try {
                    sample(r);
                } catch (RuntimeException e) {
                    LOG.warn("model {}: sampling failed: {}", id, e.toString());
                    if (runs.active.contains(r)) {
                        ends.abandon(r, "the run failed: " + e.getMessage());
                    }
                }
            }
        }
    }

    /** The runs this step carries and how many tokens each: one for a generating run, a chunk of a prompt else. */
    private List<DecodingGeneration> members() {
        List<DecodingGeneration> members = new ArrayList<>();
        int room = batch.capacity();
        for (DecodingGeneration r : runs.active) {
            if (r.generating) {
                r.chunk = 1;
                members.add(r);
                room--;
            }
        }
        for (DecodingGeneration r : runs.active) {
            if (r.generating || room <= 0) {
                continue;
            }
            r.chunk = Math.min(room, r.prompt.length - r.prefilled);
            room -= r.chunk;
            members.add(r);
        }
        members.sort(BY_SEQUENCE);
        return members;
    }

    /** The batch: each member's tokens, logits asked for the last token of each run that will sample. */
    private void fill(List<DecodingGeneration> members) {
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
    }

    /** What each member's sequence holds now that the step is decoded. */
    private static void decoded(List<DecodingGeneration> members) {
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
    }

    private void sample(DecodingGeneration r) {
        int forced = r.reasoningLimit.isEmpty() ? -1
                : r.reasoningLimit.get().forced((text, special) -> model.tokenize(text, false, special));
        int token = forced;
        try {
            if (forced >= 0) {
                // the budget's closing words, in the chain's history as if sampled (its penalties see them)
                r.sampler.accept(token);
            } else {
                token = r.sampler.sample(context, r.output);
            }
        } catch (LlamaException e) {
            // a grammar that leaves no token: the answer so far is not what was asked for, and cannot become it
            if (!r.request.sampling().logitBias().isEmpty()) {
                // the request's own biases took out what the format needs: the client's to change, every retry
                // would meet it again
                ends.fail(r, GenerationEvent.invalid("logit_bias", "the answer's format and 'logit_bias' contradict"
                        + " each other: with the tokens it bans (or outweighs), no token the format allows is left"
                        + " to write (" + e.getMessage() + ")"));
                return;
            }
            ends.fail(r, "the model could not go on under the answer's grammar: " + e.getMessage());
            return;
        }
        if (r.firstToken == 0) {
            r.firstToken = System.nanoTime();
        }
        // a marker the budget writes may be one of the model's end tokens: it ends the reasoning, not the answer
        if (forced < 0 && model.isEndOfGeneration(token)) {
            r.endToken = token;
            ends.finish(r, StopReason.END);
            return;
        }
        r.generated++;
        byte[] piece = tokenizer.piece(token, r.request.preserved().contains(token));
        if (r.request.logprobs().isPresent()) {
            r.request.logprob(TokenChances.of(context.logits(r.output), token, piece,
                    Math.min(r.request.logprobs().getAsInt(), TokenLogprob.MAX_TOP),
                    id -> tokenizer.piece(id, r.request.preserved().contains(id))));
        }
        String text = r.utf8.add(piece);
        r.slot.held.sampled(token, text, r.utf8.whole(), piece.length == 0);
        if (!text.isEmpty()) {
            r.answer.append(text);
            r.request.text(text, r.generated);
        }
        if (r.reasoningLimit.isPresent()) {
            r.reasoningLimit.get().wrote(r.answer, text.length());
        }
        r.lastToken = token;
        r.generating = true;
        if (r.grammarLater.isPresent() && reasoningEnded(r, text.length())) {
            startGrammar(r);
        }
        if (r.request.maxTokens() > 0 && r.generated >= r.request.maxTokens()
                || r.position() + 1 >= sequenceContext) {
            ends.finish(r, StopReason.LENGTH);
        }
    }

    /**
     * The reasoning has ended: from the next token on, the answer follows its grammar. The chain starts over (its
     * penalties forget the reasoning), as the grammar starts at the answer's beginning. A grammar llama.cpp refuses
     * leaves the answer free (the pipeline checks it).
     */
    private void startGrammar(DecodingGeneration r) {
        AnswerGrammar grammar = r.grammarLater.orElseThrow();
        r.grammarLater = Optional.empty();
        Optional<Sampler> constrained = GrammarSampler.of(model, r.request.sampling(), grammar, id);
        if (constrained.isPresent()) {
            r.sampler.close();
            r.sampler = constrained.get();
        }
    }

    /** Whether the text just added to the answer completes the reasoning's closing tag. */
    private static boolean reasoningEnded(DecodingGeneration r, int added) {
        String end = r.grammarLater.orElseThrow().after().orElseThrow();
        return added > 0 && r.answer.indexOf(end, Math.max(0, r.answer.length() - added - end.length() + 1)) >= 0;
    }

    /** The sequence of each entry of the batch, in its order (tests, between the batch's making and its decode). */
    int[] batchSequences() {
        int[] s = new int[batch.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = batch.sequences(i)[0];
        }
        return s;
    }

    long decodes() {
        return decodes;
    }

    long decodedTokens() {
        return decodedTokens;
    }

    long abortedDecodes() {
        return abortedDecodes;
    }

    int widest() {
        return widest;
    }

    @Override
    public void close() {
        if (batch != null) {
            batch.close();
        }
    }
}
