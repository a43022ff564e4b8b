package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.StopReason;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One model's end of turn. Runtime 1.3.0 misreads the EOS id of models converted by rkllm-toolkit 1.2.x
 * (rknn-llm#534): the model ends its answer with its end-of-turn token, the runtime does not stop there and
 * generation runs on, answer after answer, to the token limit. That token is a special one, which the runtime
 * does not print ({@code skip_special_token}): it arrives as a token without text.
 *
 * <p>The guard (on for runtime 1.3, {@code runtime.eos_guard}) ends a run where a token without text came after
 * the answer had started and more text followed it: the runtime went past a special token, which in a chat
 * answer is the end of the turn. The text after it is not passed on. A silent token alone changes nothing (a
 * runtime may print nothing for its real EOS before it finishes). Without the guard such runs end at the token
 * limit ({@code length}).
 *
 * <p>Either way the model is named in one warning, with the likely cause and the fix, the first time it shows:
 * when the guard stops a run, or on 1.3 when an answer runs to the end of the context without a limit of its own,
 * or when {@value #STREAK} answers in a row end at a limit of at least {@value #TELLING_LIMIT} tokens. Used on the model's worker thread only.
 */
final class EosWatch {
    private static final Logger LOG = LoggerFactory.getLogger(EosWatch.class);
    static final int STREAK = 3;
    /**
     * A request limit below this says nothing about the EOS: a short limit (a task's, a probe's) is reached by
     * healthy answers too.
     */
    static final int TELLING_LIMIT = 256;

    private final String model;
    private final boolean guard;
    private final boolean abi13;
    private final AtomicBoolean warned = new AtomicBoolean();
    private int limitStreak;

    /**
     * @param guard end runs that go past a special token
     * @param abi13 the runtime is 1.3, the release with the fault (the only one the warnings speak of)
     */
    EosWatch(String model, boolean guard, boolean abi13) {
        this.model = model;
        this.guard = guard;
        this.abi13 = abi13;
    }

    /** A new run's state. */
    Run run() {
        return new Run();
    }

    /** One run: feed it every piece of text, empty ones included, in order. */
    final class Run {
        private boolean answerStarted;
        private boolean silentAfterAnswer;
        private boolean stopped;

        /** True when the run went past the end of its turn: stop it, and do not pass this piece on. */
        boolean passedTheEnd(String text) {
            if (!guard || stopped) {
                return stopped;
            }
            if (text.isEmpty()) {
                silentAfterAnswer |= answerStarted;
                return false;
            }
            if (silentAfterAnswer) {
                stopped = true;
                return true;
            }
            answerStarted = true;
            return false;
        }

        boolean stopped() {
            return stopped;
        }
    }

    /**
     * A run ended.
     *
     * @param run its state
     * @param reason how it ended, as reported to the reader
     * @param requestLimit the token limit the request set, 0 for none (the run then filled the context or the
     *                     runtime's limit)
     */
    void ended(Run run, StopReason reason, int maxTokens) {
        boolean requestLimit = maxTokens > 0;
        if (run.stopped()) {
            warnOnce("model {}: the runtime went on after the answer's end-of-turn token (a special token, then more"
                    + " text): it did not recognise the model's EOS. Runtime 1.3.0 misreads the EOS id of models"
                    + " converted with rkllm-toolkit 1.2.x (rknn-llm#534). The server ends such answers there"
                    + " itself (runtime.eos_guard); the fix is to re-convert the model with rkllm-toolkit 1.3.0, or"
                    + " to use runtime 1.2.3", model);
        } else if (reason == StopReason.END) {
            limitStreak = 0;
        } else if (reason == StopReason.LENGTH && abi13 && (!requestLimit || maxTokens >= TELLING_LIMIT)) {
            limitStreak++;
            if (!requestLimit || limitStreak >= STREAK) {
                warnOnce("model {}: " + (requestLimit ? STREAK + " answers in a row ran to their token limit"
                        : "an answer ran to the end of the context") + " without ending: its EOS may never fire."
                        + " Likely cause: runtime 1.3.0 with a model converted by rkllm-toolkit 1.2.x, whose EOS id"
                        + " 1.3.0 misreads (rknn-llm#534; with RKLLM_LOG_LEVEL=2 the runtime prints the EOS token it"
                        + " uses when the model loads). Such answers are sent with finish_reason length. Fix:"
                        + " re-convert the model with rkllm-toolkit 1.3.0, or use runtime 1.2.3", model);
            }
        }
    }

    private void warnOnce(String message, String model) {
        if (warned.compareAndSet(false, true)) {
            LOG.warn(message, model);
        }
    }
}
