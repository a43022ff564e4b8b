package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.backend.llama.StopStrings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GGUF chat's follow-up reuses the previous answer, not only the previous prompt (issue 31): the client sends the
 * answer back as text, and however the model's tokens spelt it (pieces the tokenizer would cut otherwise, bytes
 * that came back as U+FFFD, the last token never decoded), the follow-up decodes only what is new. Tiny random-weight
 * models write all of these; greedy answers repeat, so two copies of one model ({@code tiny}, {@code tiny-twin}:
 * the same file, separate caches) compare two ways of ending the same answer. {@code qwen2.5-tiny} has no chat
 * template of its own and is served with its family's (ChatML). An answer that ended with the model's end-of-turn
 * token: {@code backend.llama.AnswerReuseTest}.
 */
class LlamaFollowUpTest {
    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat())
                .model("tiny-twin", TinyLlama.Options.chat())
                .model("qwen2.5-tiny", TinyLlama.Options.chat().withChatTemplate(""))
                .set("models.max_loaded", "3").start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** One answered turn of a conversation. */
    record Turn(String answer, int prompt, int completion, int cached, int decoded, String finish) {
        static Turn of(JsonNode reply) {
            assertThat(reply.at("/usage/prompt_tokens_details/cached_tokens").asInt())
                    .isEqualTo(reply.at("/timings/cache_n").asInt());
            return new Turn(LlamaChatTest.content(reply), reply.at("/usage/prompt_tokens").asInt(),
                    reply.at("/usage/completion_tokens").asInt(), reply.at("/timings/cache_n").asInt(),
                    reply.at("/timings/prompt_n").asInt(), reply.at("/choices/0/finish_reason").asText());
        }
    }

    static Turn send(String model, List<String> messages, String extra) throws Exception {
        return send(model, messages, 20, extra);
    }

    static Turn send(String model, List<String> messages, int maxTokens, String extra) throws Exception {
        String body = "{\"model\":\"" + model + "\",\"temperature\":0,\"max_tokens\":" + maxTokens
                + ",\"messages\":["
                + String.join(",", messages) + "]" + (extra.isEmpty() ? "" : "," + extra) + "}";
        return Turn.of(LlamaChatTest.ok(server.post("/v1/chat/completions", body)));
    }

    @Test
    void everyFollowUpReusesThePreviousPromptAndAnswerInTheModelsOwnTemplate() throws Exception {
        fiveTurns("tiny", "Tell me about the board, please.");
    }

    @Test
    void everyFollowUpReusesThePreviousPromptAndAnswerInTheFamilyTemplate() throws Exception {
        fiveTurns("qwen2.5-tiny", "What does the NPU do?");
    }

    private static void fiveTurns(String model, String first) throws Exception {
        List<String> messages = new ArrayList<>(List.of(LlamaChatTest.user(first)));
        Turn previous = null;
        for (int turn = 1; turn <= 5; turn++) {
            Turn now = send(model, messages, "");
            assertThat(now.decoded() + now.cached()).isEqualTo(now.prompt());
            if (previous != null) {
                assertThat(now.cached()).as("turn %d after a %s-token prompt and a %s-token answer (%s)", turn,
                        previous.prompt(), previous.completion(), previous.finish())
                        .isGreaterThanOrEqualTo(previous.prompt() + previous.completion() - 1);
            }
            messages.add(LlamaChatTest.assistant(now.answer()));
            messages.add(LlamaChatTest.user("And what about part " + turn + "?"));
            previous = now;
        }
    }

    @Test
    void anAnswerEndedByAStopStringIsReusedAsFarAsTheClientKeptIt() throws Exception {
        String question = LlamaChatTest.user("Name the cores of the board.");
        Turn whole = send("tiny-twin", List.of(question), "");
        int at = StopStrings.stopAt(whole.answer());
        String stop = whole.answer().substring(at, at + 3);
        String kept = whole.answer().substring(0, at);

        // the same answer sent back cut where the stop string starts, by the client: what the model's tokens spell
        // of it is reused
        Turn trimmed = send("tiny-twin", List.of(question, LlamaChatTest.assistant(kept),
                LlamaChatTest.user("And the small ones?")), "");

        Turn stopped;
        try (LogCapture llama = LogCapture.llamaCpp()) {
            stopped = send("tiny", List.of(question), "\"stop\":[" + TestServer.JSON.valueToTree(stop) + "]");
            // the run ends at the end of the step under way (the pipeline cancels it as the loop decodes on):
            // no decode is aborted, so llama.cpp reports no failed one
            assertThat(llama.warnings()).isEmpty();
        }
        assertThat(stopped.answer()).isEqualTo(kept);
        assertThat(stopped.finish()).isEqualTo("stop");
        Turn followUp = send("tiny", List.of(question, LlamaChatTest.assistant(kept),
                LlamaChatTest.user("And the small ones?")), "");
        int keptTokens = tokensFor("tiny-twin", question, kept);
        assertThat(followUp.cached()).as("the prompt (%d tokens) and the %d tokens that wrote the answer up to the "
                        + "stop string", stopped.prompt(), keptTokens)
                .isEqualTo(trimmed.cached()).isGreaterThanOrEqualTo(stopped.prompt() + keptTokens - 1);
    }

    /** The fewest tokens of the model's greedy answer to {@code question} that write {@code text}, its beginning. */
    static int tokensFor(String model, String question, String text) throws Exception {
        int low = 1;
        int high = 20;
        while (low < high) {
            int k = (low + high) / 2;
            String answer = send(model, List.of(question), k, "").answer();
            if (answer.startsWith(text)) {
                high = k;
            } else {
                low = k + 1;
            }
        }
        return low;
    }

    @Test
    void anEditedAnswerCutsTheCacheWhereTheEditStarts() throws Exception {
        String question = LlamaChatTest.user("How is the board cooled?");
        Turn original = send("tiny", List.of(question), "");
        Turn twin = send("tiny-twin", List.of(question), "");
        assertThat(twin.answer()).isEqualTo(original.answer());
        int at = original.answer().length() / 2;
        String answer = original.answer();
        String edited = answer.substring(0, at) + (answer.charAt(at) == 'Z' ? "Y" : "Z") + answer.substring(at + 1);

        Turn afterEdit = send("tiny", List.of(question, LlamaChatTest.assistant(edited),
                LlamaChatTest.user("Is a fan enough?")), "");
        // the same answer cut where the edit starts reuses exactly as much
        Turn afterCut = send("tiny-twin", List.of(question, LlamaChatTest.assistant(answer.substring(0, at)),
                LlamaChatTest.user("Is a fan enough?")), "");
        assertThat(afterEdit.cached()).isEqualTo(afterCut.cached())
                .isGreaterThan(original.prompt()).isLessThan(original.prompt() + original.completion() - 1);
        assertThat(afterEdit.decoded()).isEqualTo(afterEdit.prompt() - afterEdit.cached());
    }
}
