package io.rkllm.server.engine.contract.cache;

/**
 * What a backend's cache policy decided for one run, in the words every backend speaks: the slot, how much of what
 * it holds the run goes on from, and whether the run's own tokens stay in the cache. Each backend's policy is a pure
 * function of what its slots hold and the new prompt, and its own decision type says more (RKLLM: the template and
 * tools to set, what to send); this is the part they share, for logs and tests.
 *
 * <p>RKLLM reuses whole conversations: {@link Reuse.All} (only the new messages are sent),
 * {@link Reuse.SystemPrompt} (cleared but for the system prompt's entries) or {@link Reuse.Nothing}; a background
 * task runs {@link Reuse.Beside} the cached chat. A token-level backend (llama.cpp) keeps the longest common prefix
 * of what a slot holds and the new prompt's tokens: {@link Reuse.Prefix}, and decodes the rest.
 *
 * @param kept the run's tokens stay in the cache afterwards (RKLLM's {@code keep_history})
 */
public record CacheDecision(int slot, Reuse reuse, boolean kept) {

    /** How much of what the slot holds the run goes on from. */
    public sealed interface Reuse {
        /** All of it: only the new part is sent. */
        record All(int tokens) implements Reuse {
        }

        /** Its first {@code tokens}; what follows is dropped, the rest of the prompt is sent. */
        record Prefix(int tokens) implements Reuse {
        }

        /** The system prompt's entries, whose length the runtime knows. */
        record SystemPrompt() implements Reuse {
        }

        /** Nothing: an empty cache. */
        record Nothing() implements Reuse {
        }

        /** The run sees what the slot holds and leaves it as it was (its own tokens are dropped). */
        record Beside() implements Reuse {
        }
    }
}
