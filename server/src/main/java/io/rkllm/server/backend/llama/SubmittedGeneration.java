package io.rkllm.server.backend.llama;

import io.rkllm.llama.SamplingParams;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.TokenLogprob;
import io.rkllm.server.engine.contract.TokenSink;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One generation handed to the decode loop: what to run, where its text goes, and the queue its end comes back on to
 * the thread that asked (the engine's worker). The text goes to the request's token sink straight from the loop's
 * thread (a queue of the reader's: the sink is safe to call from any thread): handed through the worker, each token
 * woke one more thread, which on a board's cores busy with ggml's threads cost the decode a twentieth of its speed;
 * a generation without a sink (the tests') gets its text on the queue too.
 * Cancelled from any thread; the loop sees it between decodes, at the end of one, and inside a prompt chunk's
 * (the abort callback: {@link StepAbort}).
 *
 * @param text the prompt as the model reads it (its chat template applied)
 * @param task a background task: it runs in the spare sequence, beside what the chat sequences hold, and leaves
 *             nothing behind
 * @param sampling the sampler chain's settings, without a grammar
 * @param grammar what the answer must be, from its first token or after the reasoning's end
 * @param preserved the control tokens the answer writes as text (the markers of the model's dialect, as llama-server's
 *                  preserved tokens): any other control token writes nothing
 */
record SubmittedGeneration(ChatPrompt prompt, String text, boolean task, SamplingParams sampling,
                           Optional<AnswerGrammar> grammar, int maxTokens, Set<Integer> preserved,
                           BlockingQueue<Event> events, Flag cancelled, Optional<TokenSink> sink) {

    SubmittedGeneration(ChatPrompt prompt, String text, boolean task, SamplingParams sampling,
                        Optional<AnswerGrammar> grammar, int maxTokens, Set<Integer> preserved, TokenSink sink) {
        this(prompt, text, task, sampling, grammar, maxTokens, Set.copyOf(preserved), new LinkedBlockingQueue<>(),
                new Flag(), Optional.of(sink));
    }

    /** A generation whose text comes back on its queue. */
    SubmittedGeneration(ChatPrompt prompt, String text, boolean task, SamplingParams sampling,
                        Optional<AnswerGrammar> grammar, int maxTokens, Set<Integer> preserved) {
        this(prompt, text, task, sampling, grammar, maxTokens, Set.copyOf(preserved), new LinkedBlockingQueue<>(),
                new Flag(), Optional.empty());
    }

    /** A generation whose answer writes no control token. */
    SubmittedGeneration(ChatPrompt prompt, String text, boolean task, SamplingParams sampling,
                        Optional<AnswerGrammar> grammar, int maxTokens) {
        this(prompt, text, task, sampling, grammar, maxTokens, Set.of());
    }

    /** Sends text to the reader ({@code tokens} generated so far), on the loop's thread. */
    void text(String text, int tokens) {
        if (sink.isPresent()) {
            sink.get().text(text, tokens);
        } else {
            events.add(new Event.Text(text, tokens));
        }
    }

    /** How many alternatives each token's log probability has beside it, when the request asks for them. */
    OptionalInt logprobs() {
        return prompt.settings().logprobs();
    }

    /** Sends a token's log probability to the reader, before its text (a generation without a sink has none). */
    void logprob(TokenLogprob token) {
        sink.ifPresent(s -> s.logprob(token));
    }

    /** Sends the generation's end back to the thread that asked. */
    void end(GenerationEvent.End end) {
        events.add(new Event.End(end));
    }

    /** What the loop sends back: text as it comes, then the end. */
    sealed interface Event {
        record Text(String text, int tokens) implements Event {
        }

        record End(GenerationEvent.End end) implements Event {
        }
    }

    /** A flag any thread may set, read by the loop and by the abort callback on ggml's threads. */
    static final class Flag {
        private volatile boolean set;

        void set() {
            set = true;
        }

        boolean isSet() {
            return set;
        }
    }
}
