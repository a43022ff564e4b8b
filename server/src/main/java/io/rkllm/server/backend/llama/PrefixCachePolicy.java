package io.rkllm.server.backend.llama;

import io.rkllm.server.engine.contract.cache.CacheDecision;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * llama.cpp's KV cache policy: reuse of the longest common prefix, as llama-server does, found by tokens and by text.
 * A context has several sequences (slots), each holding the tokens of what it last ran and the text they spell; a new
 * prompt goes to the slot that shares the longest prefix with it, the slot's cache is cut where they first differ
 * ({@code llama_memory_seq_rm} from there on), and only the rest is decoded.
 *
 * <p>Why by text too: the answer a slot holds comes back in the follow-up as text, and the prompt's tokens, cut from
 * that text by the tokenizer, are often not the tokens the model sampled (a word written in other pieces than the
 * tokenizer cuts it, bytes that came back as U+FFFD, the answer's last token never decoded). So the prompt is also
 * matched against the text the slot spells: where that text is longer than the tokens agree, the prompt is the
 * slot's own tokens up to the last clean cut inside the common text, then the rest of the text tokenized on its own.
 * The model then reads its answer as it wrote it, and the follow-up decodes only what is new.
 *
 * <p>A pure function of what each slot holds, the new prompt and the tokenizer (itself a pure function of text),
 * like every backend's policy.
 */
public final class PrefixCachePolicy {
    /**
     * Where each conversation has a KV cache of its own, llama.cpp copies another sequence's cells only with its whole
     * cache (every cell of it, used or not: hundreds of MB at a few thousand cells), inside the next decode: a copy
     * is made only when it spares at least this many tokens more than the slot's own cells do.
     */
    public static final int OWN_CACHES_COPY_GAIN = 64;

    private final int copyGain;

    /** Cells shared between sequences at no cost (one KV cache they all use): any gain is worth a copy. */
    public PrefixCachePolicy() {
        this(1);
    }

    /** @param copyGain the fewest tokens a copy from another sequence must spare over the slot's own cells */
    public PrefixCachePolicy(int copyGain) {
        this.copyGain = Math.max(1, copyGain);
    }

    /**
     * What one slot holds.
     *
     * @param tokens the tokens it ran, in order: its cells, then at most one sampled and never decoded
     * @param decoded how many of them its cells hold
     * @param spelling the text they spell
     * @param lastUsed when it last ran, on any increasing clock (0: never)
     */
    public record Held(int[] tokens, int decoded, Spelling spelling, long lastUsed) {
        public Held {
            tokens = tokens.clone();
            if (decoded < 0 || decoded > tokens.length || spelling.tokens() != tokens.length) {
                throw new IllegalArgumentException("a slot holds " + tokens.length + " tokens, " + decoded
                        + " decoded, spelt as " + spelling.tokens());
            }
        }

        /** Tokens in its cells, spelt as text that was written for them. */
        public static Held decoded(int[] tokens, long lastUsed) {
            return new Held(tokens, tokens.length, Spelling.blank(tokens.length), lastUsed);
        }

        /** A slot never used. */
        public static Held empty() {
            return new Held(new int[0], 0, Spelling.NONE, 0);
        }
    }

    /**
     * A new prompt.
     *
     * @param text the text the model reads (its chat template applied)
     * @param tokens the text tokenized whole (with the tokenizer's BOS)
     */
    public record Prompt(String text, int[] tokens) {
        public Prompt {
            Objects.requireNonNull(text, "text");
            tokens = tokens.clone();
        }
    }

    /** The tokenizer, for the text after what a slot holds. */
    @FunctionalInterface
    public interface Tokenizer {
        /**
         * The tokens of {@code text} as it continues a prompt (no BOS), when they spell exactly that text; empty
         * when they do not (a tokenizer that adds a space before a text it starts).
         */
        Optional<int[]> continuation(String text);
    }

    /**
     * The decision: the slot and what it keeps ({@link CacheDecision}), the prompt's tokens and which to decode.
     *
     * @param tokens the prompt as the run decodes it: the source slot's tokens as far as they are shared, then the
     *               rest
     * @param shared how many of {@code tokens} are the source slot's (decoded or not); it spells them cleanly
     * @param source the slot whose tokens the prompt starts with: the run's own slot, or another one whose first
     *               {@link #keep()} cells the run's slot gets a copy of (in a unified KV cache the copy shares the
     *               cells: it costs no memory)
     */
    public record Decision(CacheDecision cache, int[] tokens, int shared, int source, boolean saved) {
        public Decision {
            Objects.requireNonNull(cache, "cache");
            tokens = tokens.clone();
        }

        /** A decision whose source is a slot. */
        public Decision(CacheDecision cache, int[] tokens, int shared, int source) {
            this(cache, tokens, shared, source, false);
        }

        /** The run starts from a saved state ({@code source} is its index among the saved ones) put into its slot. */
        public boolean restores() {
            return saved && keep() > 0;
        }

        /** The first cells the run goes on from: the source's, kept or copied; what follows is dropped. */
        public int keep() {
            return switch (cache.reuse()) {
                case CacheDecision.Reuse.All all -> all.tokens();
                case CacheDecision.Reuse.Prefix prefix -> prefix.tokens();
                default -> 0;
            };
        }

        /** The run starts from a copy of another slot's cells. */
        public boolean copies() {
            return !saved && source != cache.slot() && keep() > 0;
        }

        /** The prompt's tokens after the kept cells (never empty: the last one gives the logits). */
        public int[] decode() {
            return Arrays.copyOfRange(tokens, keep(), tokens.length);
        }
    }

    /**
     * The slot for {@code prompt} (at least one token), and what it starts from. The slot sharing the longest prefix
     * with it, by tokens or by text, is the source. When what they share is at least half of what that slot holds
     * (a follow-up, an edited or regenerated turn), the run goes on in that slot, cut where they differ. When it is
     * less (another chat that starts as this one did: the same system prompt), cutting would throw away a chat for a
     * few tokens: the run takes a slot that holds nothing, else the least recently used one, and starts from a copy
     * of the shared cells. When nothing is shared, the run takes a slot that holds nothing, else the least recently
     * used one.
     */
    public Decision decide(List<Held> slots, Prompt prompt, Tokenizer tokenizer) {
        if (slots.isEmpty() || prompt.tokens().length == 0) {
            throw new IllegalArgumentException("a decision needs a slot and a prompt of at least one token");
        }
        Best found = best(slots, prompt, tokenizer);
        int source = found == null ? -1 : found.index();
        Candidate best = found == null ? null : found.candidate();
        if (source < 0) {
            int slot = emptyOrLeastRecentlyUsed(slots);
            return new Decision(new CacheDecision(slot, new CacheDecision.Reuse.Nothing(), true), prompt.tokens(), 0,
                    slot);
        }
        Held held = slots.get(source);
        int[] tokens = best.tokens();
        // the last prompt token is always decoded again, so that the run has its logits to sample from
        int keep = Math.min(Math.min(best.shared(), held.decoded()), tokens.length - 1);
        int slot = 2 * keep >= held.decoded() ? source : emptyOrLeastRecentlyUsed(slots);
        if (slot != source) {
            // what the slot itself shares with the prompt (the same system prompt, the template's first tokens)
            Held own = slots.get(slot);
            int ownKeep = Math.min(Math.min(commonPrefix(own.tokens(), tokens), own.decoded()), tokens.length - 1);
            if (keep - ownKeep < copyGain) {
                CacheDecision.Reuse reuse = ownKeep == 0 ? new CacheDecision.Reuse.Nothing()
                        : new CacheDecision.Reuse.Prefix(ownKeep);
                return new Decision(new CacheDecision(slot, reuse, true), tokens, ownKeep, slot);
            }
        }
        CacheDecision.Reuse reuse = keep == 0 ? new CacheDecision.Reuse.Nothing()
                : slot == source && keep == held.decoded() ? new CacheDecision.Reuse.All(keep)
                : new CacheDecision.Reuse.Prefix(keep);
        return new Decision(new CacheDecision(slot, reuse, true), tokens, best.shared(), source);
    }

    /**
     * The same decision with states saved in memory besides the slots ({@link SavedPrompts}): a saved state is the
     * source when it gives the prompt more cells than any slot could, by at least one for every
     * {@link #RESTORE_TOKENS_PER_GAIN} it holds; it is then put into the slot that holds nothing, else the least
     * recently used one, and the run goes on from it.
     */
    public Decision decide(List<Held> slots, List<Held> saved, Prompt prompt, Tokenizer tokenizer) {
        Decision inSlots = decide(slots, prompt, tokenizer);
        Best found = saved.isEmpty() ? null : best(saved, prompt, tokenizer);
        if (found == null) {
            return inSlots;
        }
        Held held = saved.get(found.index());
        int[] tokens = found.candidate().tokens();
        int keep = Math.min(Math.min(found.candidate().shared(), held.decoded()), tokens.length - 1);
        if (keep < inSlots.keep() + Math.max(1, held.decoded() / RESTORE_TOKENS_PER_GAIN)) {
            return inSlots;
        }
        int slot = emptyOrLeastRecentlyUsed(slots);
        return new Decision(new CacheDecision(slot, new CacheDecision.Reuse.Prefix(keep), true), tokens,
                found.candidate().shared(), found.index(), true);
    }

    /**
     * Putting a saved state back copies all its cells: it is done when it spares at least one token more than the
     * slots do for every this many tokens it holds (a 4,096-token state: 16; copying its 200 MB costs what reading
     * 16 tokens of a small model does on a fast CPU, far less than on a board's), at least one.
     */
    static final int RESTORE_TOKENS_PER_GAIN = 256;

    /** The held sequence sharing the longest prefix with the prompt, by tokens or by text; null when none shares. */
    private Best best(List<Held> helds, Prompt prompt, Tokenizer tokenizer) {
        Best best = null;
        for (int i = 0; i < helds.size(); i++) {
            Held held = helds.get(i);
            int byTokens = commonPrefix(held.tokens(), prompt.tokens());
            int byText = textPrefix(held.spelling(), prompt.text());
            int bound = Math.max(byTokens, byText);
            if (bound == 0 || best != null && bound <= best.candidate().shared()) {
                continue;
            }
            Candidate candidate = new Candidate(prompt.tokens(), byTokens);
            if (byText > byTokens) {
                String rest = prompt.text().substring(held.spelling().cut(byText));
                Optional<int[]> tail = tokenizer.continuation(rest);
                if (tail.isPresent()) {
                    int[] tokens = Arrays.copyOf(held.tokens(), byText + tail.get().length);
                    System.arraycopy(tail.get(), 0, tokens, byText, tail.get().length);
                    candidate = new Candidate(tokens, byText);
                }
            }
            if (candidate.shared() > 0 && (best == null || candidate.shared() > best.candidate().shared())) {
                best = new Best(i, candidate);
            }
        }
        return best;
    }

    /** A prompt a slot could run, and how many of its tokens are the slot's. */
    private record Candidate(int[] tokens, int shared) {
    }

    /** The held sequence a candidate goes on from. */
    private record Best(int index, Candidate candidate) {
    }

    /** How many tokens {@code a} and {@code b} share from the start. */
    static int commonPrefix(int[] a, int[] b) {
        int mismatch = Arrays.mismatch(a, b);
        return mismatch < 0 ? Math.min(a.length, b.length) : mismatch;
    }

    /**
     * How many of the held tokens spell a beginning of {@code text}: the last clean cut within the text they have
     * in common.
     */
    static int textPrefix(Spelling held, String text) {
        String spelt = held.text();
        int common = 0;
        int limit = Math.min(spelt.length(), text.length());
        while (common < limit && spelt.charAt(common) == text.charAt(common)) {
            common++;
        }
        for (int i = held.tokens(); i > 0; i--) {
            int cut = held.cut(i);
            if (cut >= 0 && cut <= common) {
                return i;
            }
        }
        return 0;
    }

    private static int emptyOrLeastRecentlyUsed(List<Held> slots) {
        int best = 0;
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).tokens().length == 0) {
                return i;
            }
            if (slots.get(i).lastUsed() < slots.get(best).lastUsed()) {
                best = i;
            }
        }
        return best;
    }
}
