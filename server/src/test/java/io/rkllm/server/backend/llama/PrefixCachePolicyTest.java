package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.backend.llama.PrefixCachePolicy.Decision;
import io.rkllm.server.backend.llama.PrefixCachePolicy.Held;
import io.rkllm.server.backend.llama.PrefixCachePolicy.Prompt;
import io.rkllm.server.engine.contract.cache.CacheDecision;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The policy in the decision words RKLLM's policy speaks too: no library, no model. Tokens are characters here,
 * except {@code "ab"}, which the tokenizer writes as one token ({@link #AB}) and a model may write as two.
 */
class PrefixCachePolicyTest {
    private static final PrefixCachePolicy POLICY = new PrefixCachePolicy();
    private static final int AB = 1000;
    private static final PrefixCachePolicy.Tokenizer TOKENIZER = text -> Optional.of(tokens(text));

    /** The fake tokenizer: one token per character, {@code ab} merged. */
    static int[] tokens(String text) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
            if (text.startsWith("ab", i)) {
                out.add(AB);
                i++;
            } else {
                out.add((int) text.charAt(i));
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    static byte[] piece(int token) {
        return (token == AB ? "ab" : String.valueOf((char) token)).getBytes(StandardCharsets.UTF_8);
    }

    static Prompt prompt(String text) {
        return new Prompt(text, tokens(text));
    }

    /** A slot that ran {@code tokens}, the last {@code pending} of them sampled and never decoded. */
    static Held held(int[] tokens, int pending, long lastUsed) {
        return new Held(tokens, tokens.length - pending, Spelling.of(tokens, Spelling.NONE, 0,
                PrefixCachePolicyTest::piece), lastUsed);
    }

    static int[] chars(String text) {
        return text.chars().toArray();
    }

    @Test
    void aFollowUpKeepsTheWholeCacheAndDecodesOnlyItsNewTokens() {
        Held chat = held(tokens("hello"), 0, 7);
        Decision d = POLICY.decide(List.of(Held.empty(), chat), prompt("hello, you"), TOKENIZER);
        assertThat(d.cache()).isEqualTo(new CacheDecision(1, new CacheDecision.Reuse.All(5), true));
        assertThat(d.decode()).containsExactly(tokens(", you"));
    }

    @Test
    void aConversationSavedInMemoryIsPutBackIntoTheLeastRecentlyUsedSlotWhenItSparesEnough() {
        String conversation = "system: be brief|user: the long question about the cores|assistant: three";
        Held saved = held(tokens(conversation), 0, 1);
        List<Held> slots = List.of(held(tokens("system: be brief|user: hi"), 0, 9),
                held(tokens("other"), 0, 5));
        Decision d = POLICY.decide(slots, List.of(saved), prompt(conversation + "|user: and the memory?"), TOKENIZER);
        assertThat(d.restores()).isTrue();
        assertThat(d.copies()).isFalse();
        assertThat(d.source()).isZero();
        assertThat(d.cache()).isEqualTo(new CacheDecision(1, new CacheDecision.Reuse.Prefix(
                tokens(conversation).length), true));
        assertThat(d.decode()).containsExactly(tokens("|user: and the memory?"));
        // a short state sparing a few tokens more is put back; one sparing nothing more is not
        Decision near = POLICY.decide(slots, List.of(held(tokens("system: be brief|user: hi there"), 0, 1)),
                prompt("system: be brief|user: hi there, you"), TOKENIZER);
        assertThat(near.restores()).isTrue();
        assertThat(near.keep()).isEqualTo(tokens("system: be brief|user: hi there").length);
        Decision same = POLICY.decide(slots, List.of(held(tokens("system: be brief|user: hi"), 0, 1)),
                prompt("system: be brief|user: hi there, you"), TOKENIZER);
        assertThat(same.restores()).isFalse();
        assertThat(same.cache().slot()).isZero();
        // a long state must spare one token more for every 256 it holds (4 here)
        String longer = "system: be brief|user: hi " + "x".repeat(1000);
        Decision costly = POLICY.decide(slots, List.of(held(tokens(longer), 0, 1)),
                prompt("system: be brief|user: hi xx!"), TOKENIZER);
        assertThat(costly.restores()).as("3 tokens more from a 1,026-token state").isFalse();
    }

    @Test
    void withACacheEachAShortSharedStartIsNotCopiedWhenTheSlotHoldsItToo() {
        // every conversation starts with the template's first tokens; another sequence shares a few more
        PrefixCachePolicy ownCaches = new PrefixCachePolicy(PrefixCachePolicy.OWN_CACHES_COPY_GAIN);
        List<Held> slots = List.of(held(tokens("<s>user: what is the NPU, and how fast"), 0, 9),
                held(tokens("<s>user: hello"), 0, 1));
        Decision d = ownCaches.decide(slots, prompt("<s>user: what is it?"), TOKENIZER);
        assertThat(d.copies()).isFalse();
        assertThat(d.cache()).isEqualTo(new CacheDecision(1, new CacheDecision.Reuse.Prefix(9), true));
        assertThat(d.decode()).containsExactly(tokens("what is it?"));
        // one cache they share: the copy costs nothing, and spares the few tokens more
        Decision shared = POLICY.decide(slots, prompt("<s>user: what is it?"), TOKENIZER);
        assertThat(shared.copies()).isTrue();
        assertThat(shared.keep()).isEqualTo(17);
    }

    @Test
    void anEditedTurnCutsTheCacheAtTheFirstDifferentToken() {
        Held chat = held(tokens("hello there"), 0, 7);
        Decision d = POLICY.decide(List.of(chat), prompt("hello world"), TOKENIZER);
        assertThat(d.cache().reuse()).isEqualTo(new CacheDecision.Reuse.Prefix(6));
        assertThat(d.keep()).isEqualTo(6);
        assertThat(d.decode()).containsExactly(tokens("world"));
    }

    @Test
    void anAnswerWrittenInOtherPiecesThanTheTokenizerCutsIsReusedByItsText() {
        // the model wrote "a" and "b" where the tokenizer writes "ab": by tokens only "x" would be shared
        int[] ran = chars("Q:xab");
        Decision d = POLICY.decide(List.of(held(ran, 0, 3)), prompt("Q:xab|next"), TOKENIZER);
        assertThat(PrefixCachePolicy.commonPrefix(ran, tokens("Q:xab|next"))).isEqualTo(3);
        assertThat(d.shared()).isEqualTo(5);
        assertThat(d.keep()).isEqualTo(5);
        assertThat(d.tokens()).startsWith(ran).endsWith(tokens("|next"));
        assertThat(d.decode()).containsExactly(tokens("|next"));
    }

    @Test
    void theAnswersLastTokenNeverDecodedIsTheFirstTheFollowUpDecodes() {
        // "Q:" the prompt, "ok" the answer, its "k" sampled and never decoded
        Held chat = held(chars("Q:ok"), 1, 3);
        Decision d = POLICY.decide(List.of(chat), prompt("Q:ok|more"), TOKENIZER);
        assertThat(d.shared()).isEqualTo(4);
        assertThat(d.cache().reuse()).isEqualTo(new CacheDecision.Reuse.All(3));
        assertThat(d.decode()).containsExactly(chars("k|more"));
    }

    @Test
    void theTextIsCutOnlyWhereItsTokensEndCleanly() {
        // the first two tokens are the two bytes of one character: no cut between them
        int[] ran = {'Q', 0xC3, 0xA9, 'x'};
        Spelling spelling = Spelling.of(ran, Spelling.NONE, 0, t -> new byte[] {(byte) t});
        assertThat(spelling.text()).isEqualTo("Q\u00e9x");
        assertThat(spelling.cut(2)).isEqualTo(-1);
        assertThat(spelling.cut(3)).isEqualTo(2);
        Held chat = new Held(ran, 4, spelling, 1);
        // a prompt that shares "Q" and the accented character's first byte only by chance shares the "Q"
        Decision d = POLICY.decide(List.of(chat), new Prompt("Q\u00e8", new int[] {'Q', 0xC3, 0xA8}), TOKENIZER);
        assertThat(d.shared()).isEqualTo(2);
        assertThat(PrefixCachePolicy.textPrefix(spelling, "Q\u00e8")).isEqualTo(1);
        assertThat(PrefixCachePolicy.textPrefix(spelling, "Q\u00e9y")).isEqualTo(3);
    }

    @Test
    void aContinuationTheTokenizerCannotSpellExactlyFallsBackToTheTokens() {
        PrefixCachePolicy.Tokenizer spaces = text -> Optional.empty(); // as SentencePiece adding a space
        int[] ran = chars("Q:xab");
        Decision d = POLICY.decide(List.of(held(ran, 0, 3)), prompt("Q:xab|next"), spaces);
        assertThat(d.shared()).isEqualTo(3);
        assertThat(d.tokens()).containsExactly(tokens("Q:xab|next"));
    }

    @Test
    void theSlotSharingTheLongestPrefixWinsOverAMoreRecentOne() {
        Held older = held(tokens("abcd"), 0, 1);
        Held recent = held(tokens("abx"), 0, 9);
        assertThat(POLICY.decide(List.of(recent, older), prompt("abcde"), TOKENIZER).cache().slot()).isEqualTo(1);
    }

    @Test
    void anotherChatTakesAnUnusedSlotElseTheLeastRecentlyUsedOne() {
        Held a = held(tokens("xy"), 0, 5);
        Held b = held(tokens("zw"), 0, 2);
        Decision unused = POLICY.decide(List.of(a, Held.empty()), prompt("qr"), TOKENIZER);
        assertThat(unused.cache()).isEqualTo(new CacheDecision(1, new CacheDecision.Reuse.Nothing(), true));
        assertThat(POLICY.decide(List.of(a, b), prompt("qr"), TOKENIZER).cache().slot()).isEqualTo(1);
    }

    @Test
    void anotherChatThatStartsAsOneHeldCopiesTheSharedCellsInsteadOfCuttingThatChat() {
        Held chat = held(tokens("system|a long first chat"), 0, 8);
        Decision d = POLICY.decide(List.of(chat, Held.empty()), prompt("system|hi"), TOKENIZER);
        assertThat(d.cache()).isEqualTo(new CacheDecision(1, new CacheDecision.Reuse.Prefix(7), true));
        assertThat(d.source()).isEqualTo(0);
        assertThat(d.copies()).isTrue();
        assertThat(d.decode()).containsExactly(tokens("hi"));

        Held other = held(tokens("other chat"), 0, 2);
        Decision full = POLICY.decide(List.of(chat, other), prompt("system|hi"), TOKENIZER);
        assertThat(full.cache().slot()).as("the least recently used one").isEqualTo(1);
        assertThat(full.source()).isEqualTo(0);
    }

    @Test
    void aRegeneratedAnswerStillDecodesThePromptsLastTokenForItsLogits() {
        Held chat = held(tokens("hello"), 0, 3);
        Decision d = POLICY.decide(List.of(chat), prompt("hel"), TOKENIZER);
        assertThat(d.cache().reuse()).isEqualTo(new CacheDecision.Reuse.Prefix(2));
        assertThat(d.decode()).containsExactly('l');
    }

    @Test
    void anEmptyPromptIsNoDecision() {
        assertThatThrownBy(() -> POLICY.decide(List.of(Held.empty()), new Prompt("", new int[0]), TOKENIZER))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
