package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEnd;
import io.rkllm.server.engine.contract.StopReason;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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

    /** Runs a prompt to {@code tokens}; {@code atToken} runs on the caller's thread when that many have come. */
    GenerationEnd.Finished run(ChatPrompt prompt, int tokens, int atToken, Runnable then) {
        GenerationEnd end = model.generate(prompt, tokens, (text, n) -> {
            if (n == atToken) {
                then.run();
            }
        }, new Cancellation());
        assertThat(end).isInstanceOf(GenerationEnd.Finished.class);
        return (GenerationEnd.Finished) end;
    }

    @Test
    void anIdleConversationGivesItsCellsUpToANewOne() {
        GenerationEnd.Finished first = run(prompt("Hi."), 200, -1, () -> { });
        assertThat(first.stats().generateTokens()).isEqualTo(200);
        int held = model.loop().slots().get(0).length();
        assertThat(held + first.stats().prefillTokens()).isGreaterThan(CONTEXT / 2);

        GenerationEnd.Finished second = run(prompt(LONG_QUESTION), 100, -1, () -> { });
        assertThat(second.stats().prefillTokens() + 100).as("the second needs more than the rest of the cache")
                .isGreaterThan(CONTEXT - held);
        assertThat(second.reason()).isEqualTo(StopReason.LENGTH);
        assertThat(second.stats().generateTokens()).as("all its tokens").isEqualTo(100);
        assertThat(model.loop().slots().get(0).length()).as("the idle conversation's cells went").isZero();
    }

    @Test
    void aPromptWithoutRoomWaitsForTheAnswerUnderWayToEnd() throws Exception {
        CompletableFuture<GenerationEnd.Finished> second = new CompletableFuture<>();
        // the second chat arrives when the first holds about 170 cells: its 100-token prompt does not fit beside them
        GenerationEnd.Finished first = run(prompt("Hi."), 200, 150, () -> Thread.ofPlatform().start(
                () -> second.complete(run(prompt(LONG_QUESTION), 100, -1, () -> { }))));
        GenerationEnd.Finished waited = second.get();
        assertThat(first.stats().generateTokens()).as("the first answer was not cut short").isEqualTo(200);
        assertThat(waited.stats().generateTokens()).isEqualTo(100);
        assertThat(model.loop().postponements()).isPositive();
    }
}
