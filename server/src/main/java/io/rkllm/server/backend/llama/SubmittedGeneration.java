package io.rkllm.server.backend.llama;

import io.rkllm.llama.SamplingParams;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEnd;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One generation handed to the decode loop: what to run, and the queue its output comes back on to the thread that
 * asked (the engine's worker, which gives it to its token sink: the sink is only ever called on that thread).
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
                           BlockingQueue<Event> events, Flag cancelled) {

    SubmittedGeneration(ChatPrompt prompt, String text, boolean task, SamplingParams sampling,
                        Optional<AnswerGrammar> grammar, int maxTokens, Set<Integer> preserved) {
        this(prompt, text, task, sampling, grammar, maxTokens, Set.copyOf(preserved), new LinkedBlockingQueue<>(),
                new Flag());
    }

    /** A generation whose answer writes no control token. */
    SubmittedGeneration(ChatPrompt prompt, String text, boolean task, SamplingParams sampling,
                        Optional<AnswerGrammar> grammar, int maxTokens) {
        this(prompt, text, task, sampling, grammar, maxTokens, Set.of());
    }

    /** Sends the generation's end back to the thread that asked. */
    void end(GenerationEnd end) {
        events.add(new Event.End(end));
    }

    /** What the loop sends back: text as it comes, then the end. */
    sealed interface Event {
        record Text(String text, int tokens) implements Event {
        }

        record End(GenerationEnd end) implements Event {
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
