package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.engine.contract.StopReason;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several generations of one GGUF model at once, as the engine calls them when a model runs several conversations:
 * one decode loop batches every sequence per step, and each conversation gets exactly the answer it gets alone.
 */
@Timeout(120)
class ContinuousBatchingTest {
    static final Sampling GREEDY = TinyGgufModel.GREEDY;
    static final int TOKENS = 16;

    @TempDir
    static Path dir;
    static GgufModel model;

    @BeforeAll
    static void load() throws Exception {
        model = TinyGgufModel.load(dir, 512, 3);
    }

    @AfterAll
    static void close() {
        model.close();
    }

    static ChatPrompt prompt(String question) {
        return new ChatPrompt("tiny", new ChatPrompt.Identity(question, List.of(), Trim.NONE, List.of("u:" + question),
                Optional::of), new ChatPrompt.Setup("", Optional.empty(), false, Optional.empty()),
                new ChatPrompt.Messages(List.of(ChatPrompt.Message.of("user", question))), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.of(GREEDY), Optional.empty(), 16, 512));
    }

    record Answer(GenerationEvent.End end, String text) {
    }

    static Answer generate(String question, Cancellation cancellation) {
        return generate(model, question, cancellation);
    }

    static Answer generate(GgufModel model, String question, Cancellation cancellation) {
        StringBuilder text = new StringBuilder();
        GenerationEvent.End end = model.generate(prompt(question), TOKENS, (t, n) -> text.append(t), cancellation);
        return new Answer(end, text.toString());
    }

    @Test
    void threeConversationsAdvanceInOneDecodePerStepEachAsItWouldAlone() throws Exception {
        List<String> questions = List.of("Hello there.", "What is the answer?", "Tell me about the cores.");
        List<String> alone = new ArrayList<>();
        for (String q : questions) {
            Answer a = generate(q, new Cancellation());
            assertThat(a.end()).isInstanceOf(GenerationEvent.Done.class);
            alone.add(a.text());
        }
        long decodesBefore = model.loop().decodes();

        // hold the loop until all three have asked, so that the first step already carries them all
        CountDownLatch held = HeldLoop.hold(model.loop());
        List<CompletableFuture<Answer>> together = new ArrayList<>();
        for (String q : questions) {
            together.add(CompletableFuture.supplyAsync(() -> generate(q, new Cancellation()),
                    HeldLoop::thread));
        }
        HeldLoop.awaitQueued(model.loop(), 3);
        held.countDown();
        for (int i = 0; i < questions.size(); i++) {
            Answer a = together.get(i).get();
            assertThat(a.text()).as(questions.get(i)).isEqualTo(alone.get(i));
        }
        assertThat(model.loop().widestStep()).isEqualTo(3);
        // alone, each takes a decode per token; together they share them
        assertThat(model.loop().decodes() - decodesBefore).isLessThanOrEqualTo(TOKENS + 1);
    }

    @Test
    void aStepHoldsItsSequencesInTheirOrderWhateverOrderTheyCameIn(@TempDir Path own) throws Exception {
        // a model of its own, so that its sequences start empty whatever the other tests left in theirs
        try (GgufModel fresh = TinyGgufModel.load(own, 512, 3)) {
            List<String> questions = List.of("First of three.", "Second of three?", "Third and last.");
            // asked together first: each conversation then sits in a sequence of its own, in the order they came
            askTogether(fresh, questions);
            // asked again in the reverse order: each goes back to its own sequence, the last sequence first
            CountDownLatch held = HeldLoop.hold(fresh.loop());
            List<CompletableFuture<Answer>> again = askHeld(fresh, questions.reversed());
            CompletableFuture<int[]> batch = fresh.loop().nextBatchSequences();
            held.countDown();
            int[] sequences = batch.get();
            for (CompletableFuture<Answer> a : again) {
                assertThat(a.get().end()).isInstanceOf(GenerationEvent.Done.class);
            }
            // llama.cpp computes sequences of caches of their own together only when their ids follow each other
            assertThat(java.util.stream.IntStream.of(sequences).distinct().toArray()).containsExactly(0, 1, 2);
            assertThat(sequences).isSorted();
        }
    }

    private static void askTogether(GgufModel model, List<String> questions) throws Exception {
        CountDownLatch held = HeldLoop.hold(model.loop());
        List<CompletableFuture<Answer>> together = askHeld(model, questions);
        held.countDown();
        for (CompletableFuture<Answer> a : together) {
            assertThat(a.get().end()).isInstanceOf(GenerationEvent.Done.class);
        }
    }

    /** Asks each question in turn while the loop is held, each queued before the next is asked. */
    private static List<CompletableFuture<Answer>> askHeld(GgufModel model, List<String> questions) {
        List<CompletableFuture<Answer>> asked = new ArrayList<>();
        for (String q : questions) {
            asked.add(CompletableFuture.supplyAsync(() -> generate(model, q, new Cancellation()), HeldLoop::thread));
            HeldLoop.awaitQueued(model.loop(), asked.size());
        }
        return asked;
    }

    @Test
    void aCancelledConversationEndsAndTheOthersGoOnUntouched() throws Exception {
        String keep = "Where is the board?";
        String expected = generate(keep, new Cancellation()).text();
        Cancellation cancel = new Cancellation();
        CountDownLatch held = HeldLoop.hold(model.loop());
        CompletableFuture<Answer> kept = CompletableFuture.supplyAsync(() -> generate(keep, new Cancellation()),
                HeldLoop::thread);
        CompletableFuture<Answer> cancelled = CompletableFuture.supplyAsync(() -> generate("Write a story.", cancel),
                HeldLoop::thread);
        HeldLoop.awaitQueued(model.loop(), 2);
        // cancelled on the loop's own thread after the first step: under way (its prompt read, its first token
        // sampled), not merely queued, and never finished first however the machine schedules this thread
        model.loop().afterNextStep(cancel::cancel);
        held.countDown();
        Answer gone = cancelled.get();
        assertThat(gone.end()).isInstanceOfSatisfying(GenerationEvent.Done.class,
                f -> assertThat(f.reason()).isEqualTo(StopReason.CANCELLED));
        assertThat(kept.get().text()).isEqualTo(expected);
    }
}
