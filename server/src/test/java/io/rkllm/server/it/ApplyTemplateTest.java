package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.llama.gguf.TinyLlama;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * llama-server's {@code POST /apply-template}: a chat completions request in, the text the model reads out, nothing
 * generated. Real models' templates ({@code resources/chat-templates}) lie beside tiny GGUF models as
 * {@code chat_template.jinja} (which replaces the template the file carries, as llama-server's
 * {@code --chat-template-file}); every fixture conversation, sent as an OpenAI client writes it (system message, tool
 * calls with their arguments as JSON text, tool results, the tools, the thinking switch), must come back exactly as
 * transformers' {@code apply_chat_template} renders it. The templates chosen use no BOS or EOS text (the tiny model's
 * differ from the real models').
 */
class ApplyTemplateTest {
    private static final Pattern CURRENT_DATE = Pattern.compile("Current date: \\d{4}-\\d{2}-\\d{2}");
    /** The folder each template's model lies in (its family's name, which decides whether it thinks). */
    private static final Map<String, String> TEMPLATES = new LinkedHashMap<>();

    static {
        TEMPLATES.put("Qwen-Qwen3-0.6B", "qwen3-0.6b");
        TEMPLATES.put("Qwen-QwQ-32B", "qwq-32b-qwen3");
        TEMPLATES.put("Qwen-Qwen2.5-7B-Instruct", "qwen2.5-7b");
        TEMPLATES.put("openai-gpt-oss-120b", "gpt-oss-120b");
    }

    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() throws IOException {
        server = restart();
    }

    private static LlamaTestServer restart() throws IOException {
        LlamaTestServer.Builder builder = LlamaTestServer.in(dir.resolve("main"));
        for (var t : TEMPLATES.entrySet()) {
            builder.model(t.getValue(), TinyLlama.Options.chat())
                    .file(t.getValue() + "/chat_template.jinja", resource(t.getKey() + ".jinja"));
        }
        builder.model("plain", TinyLlama.Options.chat().withChatTemplate(""));
        builder.model("mistral-nemo", TinyLlama.Options.chat()).file("mistral-nemo/chat_template.jinja",
                resource("mistralai-Mistral-Nemo-Instruct-2407.jinja"));
        builder.model("deepseek-r1-distill", TinyLlama.Options.chat()).file("deepseek-r1-distill/chat_template.jinja",
                resource("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja"));
        return builder.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = ApplyTemplateTest.class.getResourceAsStream("/chat-templates/" + name)) {
            return in.readAllBytes();
        }
    }

    /** A fixture conversation as an OpenAI client sends it. */
    private static String request(String model, JsonNode c, JsonNode tools) {
        ObjectNode body = TestServer.JSON.createObjectNode().put("model", model);
        ArrayNode messages = body.putArray("messages");
        if (c.has("system")) {
            messages.addObject().put("role", "system").put("content", c.get("system").asText());
        }
        for (JsonNode m : c.get("messages")) {
            ObjectNode message = messages.addObject().put("role", m.get("role").asText())
                    .put("content", m.get("content").asText());
            if (m.has("tool_call_id")) {
                message.put("tool_call_id", m.get("tool_call_id").asText());
            }
            for (JsonNode call : m.path("tool_calls")) {
                ObjectNode openAi = message.withArray("tool_calls").addObject().put("id", call.get("id").asText())
                        .put("type", "function");
                openAi.putObject("function").put("name", call.get("name").asText())
                        .put("arguments", call.get("arguments").asText());
            }
        }
        if (c.has("tools")) {
            body.set("tools", tools.get(c.get("tools").asText()));
        }
        boolean thinking = c.path("thinking").asBoolean(false);
        if (thinking || !model.startsWith("gpt-oss")) {
            // gpt-oss always reasons: told not to, it is given the low effort, which transformers knows nothing of
            body.putObject("chat_template_kwargs").put("enable_thinking", thinking);
        }
        return body.toString();
    }

    @Test
    void everyConversationIsWhatTransformersRenders() throws Exception {
        JsonNode conversations = TestServer.JSON.readTree(resource("conversations.json"));
        JsonNode tools = TestServer.JSON.readTree(resource("tools.json"));
        int compared = 0;
        for (var t : TEMPLATES.entrySet()) {
            for (JsonNode c : conversations) {
                String name = c.get("name").asText();
                InputStream expected = ApplyTemplateTest.class.getResourceAsStream("/chat-templates/expected/"
                        + t.getKey() + "/" + name + ".txt");
                if (expected == null || !toolsInNameOrder(c, tools)) {
                    // the template refuses it (an .error file), or the server gives it the tools in another order
                    // (theToolsAreRenderedInNameOrder)
                    continue;
                }
                TestServer.Reply reply = server.post("/apply-template", request(t.getValue(), c, tools));
                assertThat(reply.status()).as(t.getKey() + " " + name + ": " + reply.body()).isEqualTo(200);
                try (expected) {
                    // strftime_now: the fixtures' date is fixed, the server's is today's (ChatTemplateFixturesTest
                    // checks the date itself)
                    String prompt = CURRENT_DATE.matcher(reply.json().path("prompt").asText())
                            .replaceAll("Current date: 2025-07-04");
                    assertThat(prompt).as(t.getKey() + " " + name)
                            .isEqualTo(new String(expected.readAllBytes(), StandardCharsets.UTF_8));
                }
                compared++;
            }
        }
        assertThat(compared).isGreaterThanOrEqualTo(30);
    }

    /** The server renders tools by name, whatever order the client gave (a reordered list keeps the cache). */
    private static boolean toolsInNameOrder(JsonNode c, JsonNode tools) {
        String previous = "";
        for (JsonNode tool : tools.path(c.path("tools").asText())) {
            String name = tool.path("function").path("name").asText();
            if (name.compareTo(previous) < 0) {
                return false;
            }
            previous = name;
        }
        return true;
    }

    @Test
    void theToolsAreRenderedInNameOrder() throws Exception {
        JsonNode tools = TestServer.JSON.readTree(resource("tools.json"));
        String prompt = server.post("/apply-template", request("qwen3-0.6b", TestServer.JSON.readTree(
                "{\"tools\":\"notes\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"), tools))
                .json().path("prompt").asText();
        assertThat(prompt.indexOf("\"name\": \"list_notes\"")).isPositive()
                .isLessThan(prompt.indexOf("\"name\": \"save_note\""));
    }

    @Test
    void theToolsAndTheThinkingSwitchReachTheTemplate() throws Exception {
        String prompt = server.post("/apply-template", "{\"model\":\"qwen3-0.6b\",\"reasoning_effort\":\"none\","
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"parameters\":{}}}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}").json().path("prompt").asText();
        assertThat(prompt).contains("\"name\": \"lookup\"").endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n");
    }

    @Test
    void aModelWithoutATemplateOfItsOwnShowsItsFamilysTemplate() throws Exception {
        TestServer.Reply reply = server.post("/apply-template", "{\"model\":\"plain\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Hi\"}]}");
        assertThat(reply.status()).isEqualTo(200);
        // the tiny model's header names it a Llama: the family's template (Llama 3's)
        assertThat(reply.json().path("prompt").asText()).isEqualTo("<|start_header_id|>user<|end_header_id|>\n\nHi"
                + "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
    }

    @Test
    void callIdsAreGivenInTheFormTheFamilysTemplateChecks() throws Exception {
        // Mistral's templates refuse any id but 9 alphanumerics: an OpenAI client's call_1 is put in that form, the
        // call and its result keeping one id
        TestServer.Reply reply = server.post("/apply-template", "{\"model\":\"mistral-nemo\",\"tools\":[{\"type\":"
                + "\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":{}}}],\"messages\":["
                + "{\"role\":\"user\",\"content\":\"Weather in Rome?\"},{\"role\":\"assistant\",\"content\":\"\","
                + "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                + "\"arguments\":\"{\\\"city\\\":\\\"Rome\\\"}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"call_1\","
                + "\"content\":\"25 C\"}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        Matcher ids = Pattern.compile("\"id\": \"([A-Za-z0-9]{9})\"").matcher(reply.json().path("prompt").asText());
        assertThat(ids.find()).as(reply.body()).isTrue();
        String id = ids.group(1);
        assertThat(reply.json().path("prompt").asText()).contains("[TOOL_RESULTS]{\"content\": 25 C, \"call_id\": \""
                + id + "\"}").doesNotContain("call_1");
    }

    @Test
    void reasoningSentBackReachesTemplatesThatWriteIt() throws Exception {
        // Qwen3 writes the reasoning of the answers after the last question again (an agent's tool loop), as the
        // model wrote it; OpenAI clients send it back as reasoning_content, Ollama's as thinking
        for (String field : List.of("reasoning_content", "thinking")) {
            String prompt = server.post("/apply-template", "{\"model\":\"qwen3-0.6b\",\"tools\":[{\"type\":"
                    + "\"function\",\"function\":{\"name\":\"lookup\",\"parameters\":{}}}],\"messages\":["
                    + "{\"role\":\"user\",\"content\":\"Look it up.\"},{\"role\":\"assistant\",\"content\":\"\",\""
                    + field + "\":\"I should look it up.\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                    + "\"function\":{\"name\":\"lookup\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\","
                    + "\"tool_call_id\":\"c1\",\"content\":\"found\"}]}").json().path("prompt").asText();
            assertThat(prompt).as(field).contains("<|im_start|>assistant\n<think>\nI should look it up.\n</think>\n\n"
                    + "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {}}\n</tool_call><|im_end|>");
        }
    }

    @Test
    void gptOssGetsItsReasoningBackEvenBesideAPreambleAndACall() throws Exception {
        // gpt-oss's template refuses a call with both its text and its thinking: the text is kept, nothing refused
        TestServer.Reply reply = server.post("/apply-template", "{\"model\":\"gpt-oss-120b\",\"tools\":[{\"type\":"
                + "\"function\",\"function\":{\"name\":\"lookup\",\"parameters\":{}}}],\"messages\":["
                + "{\"role\":\"user\",\"content\":\"Look it up.\"},{\"role\":\"assistant\",\"content\":\"Let me"
                + " check.\",\"reasoning_content\":\"Need the tool.\",\"tool_calls\":[{\"id\":\"c1\",\"type\":"
                + "\"function\",\"function\":{\"name\":\"lookup\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\","
                + "\"tool_call_id\":\"c1\",\"content\":\"found\"}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("prompt").asText()).contains("Let me check.").contains("to=functions.lookup");
        // and the effort a request asks reaches its template
        String high = server.post("/apply-template", "{\"model\":\"gpt-oss-120b\",\"reasoning_effort\":\"high\","
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}").json().path("prompt").asText();
        assertThat(high).contains("Reasoning: high");
    }

    @Test
    void aTemplateThatDoesNotWriteToolsRefusesThemPlainly() throws Exception {
        // DeepSeek R1's distills write earlier calls, not the tools: the model would never see them
        TestServer.Reply reply = server.post("/apply-template", "{\"model\":\"deepseek-r1-distill\",\"tools\":[{"
                + "\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"parameters\":{}}}],\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body()).contains("does not support tool calling");
    }

    @Test
    void badRequestsAreTheClientsErrors() throws Exception {
        assertThat(server.post("/apply-template", "{\"model\":\"qwen3-0.6b\"}").status()).isEqualTo(400);
        TestServer.Reply unknown = server.post("/apply-template", "{\"model\":\"nope\",\"messages\":[{\"role\":"
                + "\"user\",\"content\":\"Hi\"}]}");
        assertThat(unknown.status()).isEqualTo(404);
    }
}
