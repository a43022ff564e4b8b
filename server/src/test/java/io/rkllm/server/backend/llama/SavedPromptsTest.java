package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.cache.Trim;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conversations' KV states kept in memory once their sequence serves another, as llama-server's prompt cache in
 * RAM: a conversation that comes back after more others than the model runs at once is put back, not read again,
 * and answers exactly as it did.
 */
@Timeout(120)
class SavedPromptsTest {
    @TempDir
    Path dir;

    private static final String LONG = "Tell me everything about the three cores of the board, the memory it shares"
            + " with them, how a model is converted to run there, and what the runtime does with each token it is"
            + " given, in order, from the first to the last one of the answer.";

    static ChatPrompt prompt(String question) {
        return new ChatPrompt("tiny", new ChatPrompt.Identity(question, List.of(), Trim.NONE, List.of("u:" + question),
                Optional::of), new ChatPrompt.Setup("", Optional.empty(), false, Optional.empty()),
                new ChatPrompt.Messages(List.of(ChatPrompt.Message.of("user", question))), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.of(TinyGgufModel.GREEDY), Optional.empty(), 16, 512));
    }

    record Answer(GenerationEvent.Done end, String text) {
    }

    static Answer ask(GgufModel model, String question) {
        StringBuilder text = new StringBuilder();
        GenerationEvent.End end = model.generate(prompt(question), 16, (t, n) -> text.append(t), new Cancellation());
        assertThat(end).isInstanceOf(GenerationEvent.Done.class);
        return new Answer((GenerationEvent.Done) end, text.toString());
    }

    private GgufModel load(long savedBytes) throws Exception {
        return TinyGgufModel.load(dir, 1024, new LlamaSettings(1, 2, OptionalInt.empty())
                .withSavedPrompts(savedBytes), TinyLlama.Options.chat());
    }

    @Test
    void aConversationThatComesBackAfterOthersTookItsSequenceIsPutBackNotReadAgain() throws Exception {
        try (GgufModel model = load(64L << 20)) {
            Answer first = ask(model, LONG);
            assertThat(first.end().reusedTokens()).isZero();
            // two others: the second takes the sequence the long one held, which is kept in memory first
            ask(model, "Hi.");
            ask(model, "What time is it?");
            DecodeLoop.SavedStates kept = model.loop().savedStates().get();
            assertThat(kept.saves()).isEqualTo(1);
            assertThat(kept.bytes()).isPositive();

            Answer again = ask(model, LONG);
            assertThat(model.loop().savedStates().get().restores()).isEqualTo(1);
            // all but the last prompt token (decoded again for its logits) came from memory, and the answer is the same
            assertThat(again.end().reusedTokens()).isGreaterThan(40);
            assertThat(again.text()).isEqualTo(first.text());
        }
    }

    @Test
    void theStateANewConversationWillKeepFirstIsGivenMemoryMadeReadyWhileTheModelIsIdle() throws Exception {
        try (GgufModel model = load(64L << 20)) {
            ask(model, LONG);
            // the other sequence holds nothing: the next conversation takes it, nothing is to be kept
            assertThat(model.loop().readyWhenIdle().get()).isZero();
            ask(model, "Hi.");
            // now the next one takes the long conversation's sequence: memory for its state is made ready
            assertThat(model.loop().readyWhenIdle().get()).isPositive();
            ask(model, "What time is it?");
            DecodeLoop.SavedStates kept = model.loop().savedStates().get();
            assertThat(kept.saves()).isEqualTo(1);
            assertThat(kept.readySaves()).isEqualTo(1);
            Answer again = ask(model, LONG);
            assertThat(model.loop().savedStates().get().restores()).isEqualTo(1);
            assertThat(again.end().reusedTokens()).isGreaterThan(40);
        }
    }

    @Test
    void memoryMadeReadyCountsInTheCapacityAndGivesWayToStatesSavedElsewhere() {
        long mib = StateMemory.STRIDE;
        long block = StateMemory.readySize(2 * mib); // 2.25 MiB
        try (SavedPrompts saved = new SavedPrompts(3 * mib + 2 * block + mib / 2)) {
            assertThat(save(saved, held(1, 2, 3), (int) (3 * mib), 1, null)).isTrue();
            // room for the first two of three beside the 3 MiB kept
            saved.prepare(List.of(2 * mib, 2 * mib, 2 * mib), () -> false);
            assertThat(saved.readyBytes()).isEqualTo(2 * block);
            // a state of a ready block's size goes into it: nothing else moves
            assertThat(save(saved, held(4, 5), (int) (2 * mib), 2, null)).isTrue();
            assertThat(saved.bytes()).isEqualTo(3 * mib + block);
            assertThat(saved.readyBytes()).isEqualTo(block);
            assertThat(saved.readySaves()).isEqualTo(1);
            // one of no ready block's size takes the ready block's place before a kept state's
            assertThat(save(saved, held(6), (int) mib, 3, null)).isTrue();
            assertThat(saved.readyBytes()).isZero();
            assertThat(saved.views()).extracting(h -> h.tokens()[0]).containsExactly(1, 4, 6);
            // and then the least recently used state's, whose block it takes when it fits
            long oldest = saved.get(0).state.address();
            assertThat(save(saved, held(7), (int) (3 * mib - 100), 4, null)).isTrue();
            assertThat(saved.views()).extracting(h -> h.tokens()[0]).containsExactly(4, 6, 7);
            assertThat(saved.get(2).state.address()).isEqualTo(oldest);
            assertThat(saved.bytes()).isEqualTo(block + mib + 3 * mib);
            assertThat(saved.get(2).state.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 7);
            assertThat(saved.bytes() + saved.readyBytes()).isLessThanOrEqualTo(3 * mib + 2 * block + mib / 2);
        }
    }

    @Test
    void withoutMemoryForThemTheConversationIsReadAgain() throws Exception {
        try (GgufModel model = load(0)) {
            Answer first = ask(model, LONG);
            ask(model, "Hi.");
            ask(model, "What time is it?");
            Answer again = ask(model, LONG);
            assertThat(model.loop().savedStates().get().saves()).isZero();
            assertThat(again.end().reusedTokens()).isLessThan(10);
            assertThat(again.text()).isEqualTo(first.text());
        }
    }

    private static PrefixCachePolicy.Held held(int... tokens) {
        return PrefixCachePolicy.Held.decoded(tokens, 0);
    }

    /** Saves {@code size} bytes of a state, each byte its first token (to tell them apart). */
    private static boolean save(SavedPrompts saved, PrefixCachePolicy.Held held, int size, long now,
                                SavedPrompts.Entry spare) {
        return saved.save(held, size, into -> {
            into.fill((byte) held.tokens()[0]);
            return size;
        }, now, spare);
    }

    @Test
    void theLeastRecentlyUsedGoWhenTheMemoryIsFullAndWhatAStateContinuesGoesWithIt() {
        try (SavedPrompts saved = new SavedPrompts(100)) {
            assertThat(save(saved, held(1, 2, 3), 40, 1, null)).isTrue();
            assertThat(save(saved, held(7, 8, 9), 40, 2, null)).isTrue();
            saved.restored(saved.get(0), 3); // the first used again: the second is now the oldest
            assertThat(save(saved, held(4, 5, 6), 40, 4, null)).isTrue();
            assertThat(saved.views()).extracting(h -> h.tokens()[0]).containsExactly(1, 4);
            assertThat(saved.bytes()).isEqualTo(80);
            // a later state of the same conversation replaces the one it continues
            assertThat(save(saved, held(1, 2, 3, 10, 11), 50, 5, null)).isTrue();
            assertThat(saved.views()).extracting(h -> h.tokens().length).containsExactly(3, 5);
            assertThat(saved.holds(new int[] {1, 2, 3, 10})).isTrue();
            assertThat(saved.holds(new int[] {1, 2, 4})).isFalse();
            assertThat(saved.bytes()).isEqualTo(90);
            // larger than the memory: not kept; the state about to be put back is never the one dropped
            assertThat(save(saved, held(20), 101, 6, null)).isFalse();
            SavedPrompts.Entry spare = saved.get(0);
            assertThat(save(saved, held(30), 61, 7, spare)).isFalse();
            assertThat(saved.views()).extracting(h -> h.tokens()[0]).containsExactly(4, 1); // nothing dropped for it
            assertThat(save(saved, held(30), 60, 8, spare)).isTrue();
            assertThat(saved.views()).extracting(h -> h.tokens()[0]).containsExactly(4, 30);
            assertThat(saved.get(0).state.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 4);
        }
    }
}
