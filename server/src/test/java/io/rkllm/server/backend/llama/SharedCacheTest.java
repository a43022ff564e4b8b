package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.StopReason;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sequences of a chat model share one KV cache of the served context (256 cells here, three conversations):
 * when what they hold together fills it, an idle conversation gives its cells up, and a prompt that finds no room
 * while another answer is under way waits for that answer to end, instead of failing or cutting it short.
 */
@Timeout(120)
class SharedCacheTest {
    static final int CONTEXT = 256;
    /** About 100 tokens of the tiny vocabulary. */
    static final String LONG_QUESTION = "The board has four big cores and four little cores, a three core NPU, "
            + "a GPU, eMMC storage and a fan; which of them runs a model best when the room is warm? ".repeat(2);

    @TempDir
    Path dir;
    GgufModel model;

    @BeforeEach
    void load() throws Exception {
        model = TinyGgufModel.load(dir, CONTEXT, 3);
    }

    @AfterEach
    void close() {
        model.close();
    }

    static ChatPrompt prompt(String question) {
        return AnswerReuseTest.prompt(List.of(ChatPrompt.Message.of("user", question)), Optional.empty());
    }

    /** Runs a prompt to {@code tokens}. */
    GenerationEvent.Done run(ChatPrompt prompt, int tokens) {
        GenerationEvent.End end = model.generate(prompt, tokens, (text, n) -> { }, new Cancellation());
        assertThat(end).isInstanceOf(GenerationEvent.Done.class);
        return (GenerationEvent.Done) end;
    }

    @Test
    void anIdleConversationGivesItsCellsUpToANewOne() {
        GenerationEvent.Done first = run(prompt("Hi."), 200);
        assertThat(first.stats().generateTokens()).isEqualTo(200);
        int held = model.loop().slots().get(0).length();
        assertThat(held + first.stats().prefillTokens()).isGreaterThan(CONTEXT / 2);

        GenerationEvent.Done second = run(prompt(LONG_QUESTION), 100);
        assertThat(second.stats().prefillTokens() + 100).as("the second needs more than the rest of the cache")
                .isGreaterThan(CONTEXT - held);
        assertThat(second.reason()).isEqualTo(StopReason.LENGTH);
        assertThat(second.stats().generateTokens()).as("all its tokens").isEqualTo(100);
        assertThat(model.loop().slots().get(0).length()).as("the idle conversation's cells went").isZero();
    }

    @Test
    void aPromptWithoutRoomWaitsForTheAnswerUnderWayToEnd() throws Exception {
        CompletableFuture<GenerationEvent.Done> second = new CompletableFuture<>();
        // the second chat arrives when the first holds about 170 cells: its 100-token prompt does not fit beside them.
        // The loop's own thread counts its steps and, at the 160th, holds the loop until the second has been
        // submitted: the first answer cannot end before it (as it could, on a loaded machine, if the test's thread
        // sent the second when it had read 150 tokens)
        AtomicInteger steps = new AtomicInteger();
        Runnable[] watch = new Runnable[1];
        watch[0] = () -> {
            if (steps.incrementAndGet() < 160) {
                model.loop().afterNextStep(watch[0]);
                return;
            }
            Thread.ofPlatform().start(() -> second.complete(run(prompt(LONG_QUESTION), 100)));
            while (model.loop().pendingCommands() == 0) {
                Thread.onSpinWait();
            }
        };
        model.loop().afterNextStep(watch[0]);
        GenerationEvent.Done first = run(prompt("Hi."), 200);
        GenerationEvent.Done waited = second.get();
        assertThat(first.stats().generateTokens()).as("the first answer was not cut short").isEqualTo(200);
        assertThat(waited.stats().generateTokens()).isEqualTo(100);
        assertThat(model.loop().postponements()).isPositive();
    }
}
