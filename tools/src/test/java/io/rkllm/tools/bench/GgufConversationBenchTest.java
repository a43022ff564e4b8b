package io.rkllm.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conversation benches against a GGUF model ({@code --gguf tiny}): the server started here serves the tiny
 * model through the real library, answers are limited by {@code max_tokens}, and each follow-up's share of the
 * previous answer found in the cache is reported.
 */
class GgufConversationBenchTest {
    @TempDir
    Path dir;

    @Test
    void theShareOfThePreviousAnswerAFollowUpReusedIsBetweenNoneAndAll() {
        assertThat(AnswerReuse.of(100, 20, 119)).hasValue(0.95);
        assertThat(AnswerReuse.of(100, 20, 100)).hasValue(0);
        assertThat(AnswerReuse.of(100, 20, 40)).as("history resent").hasValue(0);
        assertThat(AnswerReuse.of(100, 20, 125)).as("the answer's end token too").hasValue(1);
        assertThat(AnswerReuse.of(100, 0, 100)).isEmpty();
        assertThat(AnswerReuse.cell(OptionalDouble.of(0.954))).isEqualTo("95 %");
        assertThat(AnswerReuse.summary(new double[] {1, 0.5, 0.9})).isEqualTo("median 90 %, lowest 50 % over 3"
                + " follow-ups");
    }

    @Test
    void aLongChatWithTheTinyGgufModelReusesEachPreviousAnswer() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Map<String, String> flags = Map.of("engines.llama.threads", "1");
        Path work;
        try (GgufBenchServer server = GgufBenchServer.start(GgufBenchServer.TINY, new ConfigLoader(dir), Map.of(),
                flags)) {
            work = server.work();
            assertThat(work.resolve("models").resolve(GgufBenchServer.TINY_ID)).isDirectory();
            LongChatBench.Result r = new LongChatBench(URI.create(server.url()), server.model(),
                    new PrintStream(log, true, StandardCharsets.UTF_8), true).run(LongChatScript.generate(4, 3));
            assertThat(r.contextLength()).isEqualTo(4096);
            List<LongChatScript.Turn> script = LongChatScript.generate(4, 3).turns();
            for (int i = 0; i < 4; i++) {
                assertThat(r.turns().get(i).answer()).as("limited by max_tokens")
                        .isLessThanOrEqualTo(script.get(i).answerTokens());
            }
            assertThat(r.incrementalAnswerReuse()).hasSize(3);
            assertThat(java.util.Arrays.stream(r.incrementalAnswerReuse()).min().orElseThrow())
                    .as("all but the last token, never decoded").isGreaterThanOrEqualTo(0.98);
            assertThat(LongChatBench.markdown("t", r)).contains("previous answer reused").contains("| 4 |");
        }
        assertThat(work).as("the written model is removed").doesNotExist();
    }

    @Test
    void theConversationsBenchWithTheTinyGgufModelReusesEachPreviousAnswer() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (GgufBenchServer server = GgufBenchServer.start(GgufBenchServer.TINY, new ConfigLoader(dir), Map.of(),
                Map.of("engines.llama.threads", "1"))) {
            ConversationBench.Result r = new ConversationBench(URI.create(server.url()), server.model(),
                    new PrintStream(log, true, StandardCharsets.UTF_8), java.util.OptionalInt.of(16)).run();
            // two chats, each follow-up after an answer of up to 16 tokens, with Open WebUI's tasks between them
            assertThat(r.answerReuse()).hasSize(r.turns().size() - 2);
            // every follow-up reuses all of the previous answer but its last token (the tiny model answers greedily:
            // sampled, an answer could hold a control token the client never sees, and the cache is cut before it),
            // and but the tokens of a character its limit cut (at most three bytes of four, each a token of the tiny
            // model's byte-level vocabulary), which the client never gets
            for (ConversationBench.Turn t : r.turns()) {
                t.answerReused().ifPresent(share -> assertThat(share).as(t.chat() + " turn " + t.turn())
                        .isGreaterThanOrEqualTo(12 / 16.0));
            }
            assertThat(ConversationBench.markdown("t", r)).contains("previous answer reused");
        }
    }
}
