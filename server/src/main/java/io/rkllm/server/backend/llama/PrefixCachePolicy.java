package io.rkllm.server.backend.llama;

import io.rkllm.server.engine.cache.CacheDecision;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * llama.cpp's KV cache policy, ready for the llama.cpp backend (issue 22): token-level reuse of the longest common
 * prefix, as llama-server does. A context has several sequences (slots), each holding the tokens of what it last
 * ran; a new prompt goes to the slot that shares the longest prefix with it, the slot's cache is cut where they first
 * differ ({@code llama_memory_seq_rm} from there on), and only the rest is decoded. A follow-up decodes only its new
 * tokens; an edited or regenerated turn keeps everything before the first changed token instead of starting over.
 * A pure function of what each slot holds and the new prompt's tokens, like every backend's policy.
 */
public final class PrefixCachePolicy {

    /**
     * What one slot holds.
     *
     * @param tokens the tokens in its cache, in order
     * @param lastUsed when it last ran, on any increasing clock (0: never)
     */
    public record SlotTokens(int[] tokens, long lastUsed) {
        public SlotTokens {
            tokens = tokens.clone();
        }

        /** A slot never used. */
        public static SlotTokens empty() {
            return new SlotTokens(new int[0], 0);
        }
    }

    /**
     * The decision: the slot and what it keeps ({@link CacheDecision}), and the tokens to decode after it.
     *
     * @param decode the prompt's tokens after the kept prefix (never empty: the last one gives the logits)
     */
    public record Decision(CacheDecision cache, int[] decode) {
        public Decision {
            Objects.requireNonNull(cache, "cache");
            decode = decode.clone();
        }

        /** The cache's tokens from here on are dropped before decoding. */
        public int keep() {
            return switch (cache.reuse()) {
                case CacheDecision.Reuse.All all -> all.tokens();
                case CacheDecision.Reuse.Prefix prefix -> prefix.tokens();
                default -> 0;
            };
        }
    }

    /**
     * The slot for {@code prompt} (at least one token): the one sharing the longest prefix with it; when none shares
     * any, a slot never used, else the least recently used.
     */
    public Decision decide(List<SlotTokens> slots, int[] prompt) {
        if (slots.isEmpty() || prompt.length == 0) {
            throw new IllegalArgumentException("a decision needs a slot and a prompt of at least one token");
        }
        int best = -1;
        int bestShared = 0;
        for (int i = 0; i < slots.size(); i++) {
            int shared = commonPrefix(slots.get(i).tokens(), prompt);
            if (shared > bestShared) {
                best = i;
                bestShared = shared;
            }
        }
        if (best < 0) {
            best = leastRecentlyUsed(slots);
        }
        int[] held = slots.get(best).tokens();
        // the last prompt token is always decoded again, so that the run has its logits to sample from
        int keep = Math.min(bestShared, prompt.length - 1);
        CacheDecision.Reuse reuse = keep == 0 ? new CacheDecision.Reuse.Nothing()
                : keep == held.length ? new CacheDecision.Reuse.All(keep) : new CacheDecision.Reuse.Prefix(keep);
        return new Decision(new CacheDecision(best, reuse, true), Arrays.copyOfRange(prompt, keep, prompt.length));
    }

    /** How many tokens {@code a} and {@code b} share from the start. */
    static int commonPrefix(int[] a, int[] b) {
        int mismatch = Arrays.mismatch(a, b);
        return mismatch < 0 ? a.length : mismatch;
    }

    private static int leastRecentlyUsed(List<SlotTokens> slots) {
        int best = 0;
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).lastUsed() == 0) {
                return i;
            }
            if (slots.get(i).lastUsed() < slots.get(best).lastUsed()) {
                best = i;
            }
        }
        return best;
    }
}
