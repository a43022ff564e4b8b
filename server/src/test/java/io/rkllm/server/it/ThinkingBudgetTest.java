package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.TinyLlama;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thinking budget (llama-server's {@code reasoning_budget_tokens}, Anthropic's {@code thinking.budget_tokens}) on a
 * GGUF model whose template opens the reasoning (as Qwen3.5's and DeepSeek R1's do): the tiny model's random weights
 * never close it, so without a budget every token is reasoning; with one, the first tokens are the same reasoning, then
 * the closing marker is written for the model and what follows is its answer. An RKLLM model cannot end a reasoning
 * early: the response says the budget was not applied.
 */
class ThinkingBudgetTest {
    /** ChatML whose generation prompt opens the reasoning unless thinking is off. */
    private static final String OPENS_THINKING = "{% for message in messages %}{{'<|im_start|>' + message['role']"
            + " + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}"
            + "{{ '<|im_start|>assistant\\n' }}{% if enable_thinking is defined and enable_thinking is false %}"
            + "{{ '<think>\\n\\n</think>\\n\\n' }}{% else %}{{ '<think>\\n' }}{% endif %}{% endif %}";
    private static final int TOKENS = 24;

    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("thinker", TinyLlama.Options.qwen3().withChatTemplate(OPENS_THINKING))
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static JsonNode message(String more) throws Exception {
        JsonNode answer = LlamaChatTest.ok(server.post("/v1/chat/completions", "{\"model\":\"thinker\","
                + "\"temperature\":0,\"max_tokens\":" + TOKENS + ",\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"Which cores does the board have?\"}]" + more + "}"));
        assertThat(answer.at("/usage/completion_tokens").asInt()).isEqualTo(TOKENS);
        return answer.at("/choices/0/message");
    }

    @Test
    void theReasoningStopsAtItsBudgetAndTheModelAnswers() throws Exception {
        JsonNode free = message("");
        String reasoning = free.get("reasoning_content").asText();
        assertThat(reasoning).isNotBlank();
        assertThat(free.path("content").asText("")).as("never closed: all of it reasoning").isEmpty();

        for (String field : new String[] {"reasoning_budget_tokens", "thinking_budget_tokens"}) {
            JsonNode budgeted = message(",\"" + field + "\":6");
            String cut = budgeted.get("reasoning_content").asText();
            assertThat(cut).as(field).isNotBlank();
            assertThat(reasoning).as(field).startsWith(cut.stripTrailing()).isNotEqualTo(cut);
            assertThat(budgeted.get("content").asText()).as(field).isNotBlank().doesNotContain("</think>");
        }
        // -1 is no budget
        assertThat(message(",\"reasoning_budget_tokens\":-1").get("reasoning_content").asText()).isEqualTo(reasoning);
    }

    @Test
    void theBudgetIsExactlyThatManyTokensOfReasoning() throws Exception {
        for (int budget : new int[] {1, 4, 6}) {
            // the reasoning of an answer cut at that many tokens, and of one whose budget is that many
            JsonNode cutShort = LlamaChatTest.ok(server.post("/v1/chat/completions", "{\"model\":\"thinker\","
                    + "\"temperature\":0,\"max_tokens\":" + budget + ",\"messages\":[{\"role\":\"user\",\"content\":"
                    + "\"Which cores does the board have?\"}]}")).at("/choices/0/message");
            JsonNode budgeted = message(",\"reasoning_budget_tokens\":" + budget);
            assertThat(budgeted.get("reasoning_content").asText().stripTrailing()).as("budget " + budget)
                    .isEqualTo(cutShort.get("reasoning_content").asText().stripTrailing());
        }
    }

    @Test
    void aBudgetOfNoneClosesTheReasoningAtOnceAfterTheMessage() throws Exception {
        JsonNode none = message(",\"reasoning_budget_tokens\":0");
        assertThat(none.path("reasoning_content").asText("")).isBlank();
        assertThat(none.get("content").asText()).isNotBlank();
        JsonNode told = message(",\"reasoning_budget_tokens\":0,\"reasoning_budget_message\":\"Time is up.\"");
        assertThat(told.get("reasoning_content").asText().strip()).isEqualTo("Time is up.");
        assertThat(told.get("content").asText()).isNotBlank();
    }

    @Test
    void anthropicsBudgetTokensIsTheSameBudget() throws Exception {
        String cut = message(",\"reasoning_budget_tokens\":6").get("reasoning_content").asText();
        JsonNode answer = LlamaChatTest.ok(server.post("/v1/messages", "{\"model\":\"thinker\",\"temperature\":0,"
                + "\"max_tokens\":" + TOKENS + ",\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":6},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Which cores does the board have?\"}]}"));
        assertThat(answer.at("/content/0/type").asText()).isEqualTo("thinking");
        assertThat(answer.at("/content/0/thinking").asText()).isEqualTo(cut);
        assertThat(answer.at("/content/1/type").asText()).isEqualTo("text");
        assertThat(answer.at("/content/1/text").asText()).isNotBlank();
    }

    @Test
    void aBudgetThatIsNotANumberOfTokensIsRefused() throws Exception {
        TestServer.Reply reply = server.post("/v1/chat/completions", "{\"model\":\"thinker\",\"messages\":[{\"role\":"
                + "\"user\",\"content\":\"hi\"}],\"reasoning_budget_tokens\":-2}");
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.json().at("/error/param").asText()).isEqualTo("reasoning_budget_tokens");
        TestServer.Reply anthropic = server.post("/v1/messages", "{\"model\":\"thinker\",\"max_tokens\":8,"
                + "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":-5},\"messages\":[{\"role\":\"user\","
                + "\"content\":\"hi\"}]}");
        assertThat(anthropic.status()).isEqualTo(400);
        assertThat(anthropic.json().at("/error/message").asText()).contains("budget_tokens");
    }

    @Test
    void anRkllmModelSaysTheBudgetWasNotApplied(@TempDir Path simDir) throws Exception {
        try (TestServer sim = TestServer.in(simDir).model("m", Map.of("thinking", "1"))
                .sidecar("m", "capabilities: {thinking: true}\nfamily: qwen3\n").start()) {
            TestServer.Reply reply = sim.postForReply("/v1/chat/completions", "{\"model\":\"m\",\"messages\":[{"
                    + "\"role\":\"user\",\"content\":\"Why?\"}],\"reasoning_budget_tokens\":16}");
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.header("X-RKLLM-Thinking-Budget")).startsWith("ignored: the RKLLM runtime");
            assertThat(reply.json().at("/choices/0/message/reasoning_content").asText()).isNotEmpty();
            // thinking off: no reasoning to limit, nothing to say
            TestServer.Reply off = sim.postForReply("/v1/chat/completions", "{\"model\":\"m\",\"messages\":[{"
                    + "\"role\":\"user\",\"content\":\"Why?\"}],\"reasoning_effort\":\"none\","
                    + "\"reasoning_budget_tokens\":16}");
            assertThat(off.header("X-RKLLM-Thinking-Budget")).isNull();
        }
    }

    @Test
    void aDialectWithoutAClosingMarkerSaysTheBudgetWasNotApplied(@TempDir Path simDir) throws Exception {
        try (TestServer sim = TestServer.in(simDir).model("oss", Map.of("thinking", "1"))
                .sidecar("oss", "capabilities: {thinking: true}\nfamily: gpt-oss\n").start()) {
            TestServer.Reply reply = sim.postForReply("/v1/chat/completions", "{\"model\":\"oss\",\"messages\":[{"
                    + "\"role\":\"user\",\"content\":\"[[say:ok]] Why?\"}],\"reasoning_budget_tokens\":16}");
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.header("X-RKLLM-Thinking-Budget")).startsWith("ignored: the model's dialect");
        }
    }
}
