package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import okhttp3.Response;
import okio.BufferedSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ollama's API (/api/...) against a real server on the simulated runtime, as Ollama's clients read it. */
class OllamaApiTest {
    private static final String THINKING_SIDECAR = "capabilities: {thinking: true, tools: true}\nfamily: qwen3\n";
    private static final String TOOLS = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"description\":\"Weather\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":"
            + "{\"type\":\"string\"}},\"required\":[\"city\"]}}}]";
    private static final String TOOL_CALL = "[[say:<tool_call>\\n{\"name\": \"get_weather\", \"arguments\":"
            + " {\"city\": \"Paris\", \"days\": 2}}\\n</tool_call>]]";

    @TempDir
    Path dir;

    private static String chat(String content, String extra) {
        return "{\"model\":\"m:latest\",\"messages\":[{\"role\":\"user\",\"content\":"
                + ChatCompletionsTest.quote(content) + "}]" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    /** A streamed NDJSON answer read line by line as it arrives, each line checked to be one compact JSON object. */
    record Lines(String contentType, List<JsonNode> lines, String raw) {
        static Lines read(TestServer server, String path, String body) throws Exception {
            try (Response r = server.post(path, body)) {
                assertThat(r.code()).isEqualTo(200);
                List<JsonNode> lines = new ArrayList<>();
                StringBuilder raw = new StringBuilder();
                BufferedSource source = r.body().source();
                String line;
                while ((line = source.readUtf8Line()) != null) {
                    raw.append(line).append('\n');
                    assertThat(line).as("one JSON object per line, no blank lines").isNotBlank().startsWith("{");
                    JsonNode node = TestServer.JSON.readTree(line);
                    assertThat(line).as("compact JSON").isEqualTo(TestServer.JSON.writeValueAsString(node));
                    lines.add(node);
                }
                return new Lines(r.header("Content-Type"), lines, raw.toString());
            }
        }

        JsonNode last() {
            return lines.getLast();
        }

        String text(String pointer) {
            StringBuilder s = new StringBuilder();
            lines.forEach(l -> s.append(l.at(pointer).asText("")));
            return s.toString();
        }
    }

    private static void assertFinalStatistics(JsonNode done, JsonNode run) {
        assertThat(done.get("done").asBoolean()).isTrue();
        for (String field : List.of("total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration",
                "eval_count", "eval_duration")) {
            assertThat(done.get(field)).as(field).isNotNull();
            assertThat(done.get(field).isIntegralNumber()).as(field + " is an integer").isTrue();
            assertThat(done.get(field).asLong()).as(field).isNotNegative();
        }
        assertThat(done.get("prompt_eval_count").asInt()).isEqualTo(run.get("prefill_tokens").asInt());
        assertThat(done.get("eval_count").asInt()).isEqualTo(run.get("generate_tokens").asInt());
        // nanoseconds: the runtime's milliseconds times a million (the trace prints 7 significant digits)
        assertThat((double) done.get("eval_duration").asLong()).isCloseTo(
                run.get("generate_time_ms").asDouble() * 1_000_000, org.assertj.core.data.Percentage.withPercentage(0.01));
        assertThat(done.get("total_duration").asLong()).isGreaterThanOrEqualTo(done.get("load_duration").asLong());
    }

    @Test
    void chatStreamsNdjsonLineByLineByDefaultWithThinkingAndFinalStatistics() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("thinking", "1"))
                .sidecar("m", THINKING_SIDECAR).start()) {
            String text = "[[say:<think>\nweigh it up\n</think>\n\nThe answer is 42.]]";
            Lines lines = Lines.read(server, "/api/chat", chat(text, ""));
            assertThat(lines.contentType()).startsWith("application/x-ndjson");
            assertThat(lines.lines()).hasSizeGreaterThan(3);
            for (JsonNode line : lines.lines().subList(0, lines.lines().size() - 1)) {
                assertThat(line.get("model").asText()).isEqualTo("m:latest");
                assertThat(Instant.parse(line.get("created_at").asText())).isNotNull();
                assertThat(line.at("/message/role").asText()).isEqualTo("assistant");
                assertThat(line.at("/message/content").isTextual()).isTrue();
                assertThat(line.get("done").asBoolean()).isFalse();
                assertThat(line.has("done_reason")).isFalse();
            }
            assertThat(lines.text("/message/content")).isEqualTo("The answer is 42.");
            assertThat(lines.text("/message/thinking")).isEqualTo("weigh it up\n");
            assertThat(lines.raw()).doesNotContain("<think>");
            JsonNode done = lines.last();
            assertThat(done.get("model").asText()).isEqualTo("m:latest");
            assertThat(done.at("/message/content").asText()).isEmpty();
            assertThat(done.get("done_reason").asText()).isEqualTo("stop");
            assertFinalStatistics(done, server.runs("m").getLast());
        }
    }

    @Test
    void nonStreamingChatIsOneObjectAndThinkFalseTurnsThinkingOff() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("thinking", "1"))
                .sidecar("m", THINKING_SIDECAR).start()) {
            TestServer.Reply reply = server.postForReply("/api/chat", chat("Why?", "\"stream\":false"));
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.header("Content-Type")).startsWith("application/json");
            JsonNode body = reply.json();
            assertThat(body.get("model").asText()).isEqualTo("m:latest");
            assertThat(body.at("/message/role").asText()).isEqualTo("assistant");
            assertThat(body.at("/message/content").asText()).isNotEmpty();
            assertThat(body.at("/message/thinking").asText()).isNotEmpty();
            assertThat(body.get("done_reason").asText()).isEqualTo("stop");
            assertFinalStatistics(body, server.runs("m").getLast());

            JsonNode off = server.postForReply("/api/chat", chat("Why?", "\"stream\":false,\"think\":false")).json();
            assertThat(off.get("message").has("thinking")).isFalse();
            assertThat(server.runs("m").getLast().get("prefilled_text").asText()).endsWith("<think>\n\n</think>\n\n");
        }
    }

    @Test
    void generateStreamsResponsesAndMapsOptions() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            Lines lines = Lines.read(server, "/api/generate", "{\"model\":\"m\",\"prompt\":\"[[tokens:60]]\","
                    + "\"system\":\"Be brief.\",\"options\":{\"num_predict\":7,\"temperature\":0.3,\"top_k\":5,"
                    + "\"top_p\":0.5,\"repeat_penalty\":1.2,\"num_ctx\":2048,\"seed\":3}}");
            assertThat(lines.contentType()).startsWith("application/x-ndjson");
            assertThat(lines.lines().getFirst().has("message")).isFalse();
            assertThat(lines.lines().getFirst().get("response").isTextual()).isTrue();
            JsonNode done = lines.last();
            assertThat(done.get("done_reason").asText()).isEqualTo("length");
            assertThat(done.get("eval_count").asInt()).isEqualTo(7);
            assertThat(done.get("response").asText()).isEmpty();
            JsonNode run = server.runs("m").getLast();
            assertFinalStatistics(done, run);
            // the limit may fall inside a character: the runtime's text ends in its first bytes, the answer before it
            assertThat(lines.text("/response")).isEqualTo(run.get("output").asText().replaceFirst("\uFFFD$", ""));
            assertThat(run.get("prefilled_text").asText()).contains("Be brief.");
            assertThat(run.at("/sampling/temperature").asDouble()).isEqualTo(0.3);
            assertThat(run.at("/sampling/top_k").asInt()).isEqualTo(5);
            assertThat(run.at("/sampling/top_p").asDouble()).isEqualTo(0.5);
            assertThat(run.at("/sampling/repeat_penalty").asDouble()).isEqualTo(1.2);

            JsonNode whole = server.postForReply("/api/generate", "{\"model\":\"m\",\"stream\":false,"
                    + "\"prompt\":\"[[say:alpha STOP beta]]\",\"options\":{\"stop\":[\"STOP\"]}}").json();
            assertThat(whole.get("response").asText()).isEqualTo("alpha ");
            assertThat(whole.get("done").asBoolean()).isTrue();
            assertThat(whole.get("done_reason").asText()).isEqualTo("stop");
        }
    }

    @Test
    void toolCallsCarryObjectArgumentsAndComeBackInTheHistory() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).sidecar("m", "capabilities: {tools: true}\n")
                .start()) {
            JsonNode body = server.postForReply("/api/chat", chat(TOOL_CALL, TOOLS + ",\"stream\":false")).json();
            JsonNode call = body.at("/message/tool_calls/0");
            assertThat(call.at("/function/name").asText()).isEqualTo("get_weather");
            JsonNode arguments = call.at("/function/arguments");
            assertThat(arguments.isObject()).as("arguments are an object, not a string").isTrue();
            assertThat(arguments.get("city").asText()).isEqualTo("Paris");
            assertThat(arguments.get("days").asInt()).isEqualTo(2);
            assertThat(call.at("/function/index").asInt()).isZero();
            assertThat(body.at("/message/content").asText()).isEmpty();
            assertThat(body.get("done_reason").asText()).isEqualTo("stop");

            Lines lines = Lines.read(server, "/api/chat", chat(TOOL_CALL, TOOLS));
            JsonNode streamed = lines.lines().stream().filter(l -> l.at("/message/tool_calls").isArray())
                    .findFirst().orElseThrow().at("/message/tool_calls/0/function");
            assertThat(streamed.get("name").asText()).isEqualTo("get_weather");
            assertThat(streamed.at("/arguments/city").asText()).isEqualTo("Paris");
            assertThat(lines.last().get("done").asBoolean()).isTrue();

            // the history as Ollama clients send it back: the call with object arguments, then the tool's result
            String followUp = "{\"model\":\"m\",\"stream\":false," + TOOLS + ",\"messages\":["
                    + "{\"role\":\"user\",\"content\":\"Weather in Paris?\"},"
                    + "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"get_weather\","
                    + "\"arguments\":{\"city\":\"Paris\"}}}]},"
                    + "{\"role\":\"tool\",\"content\":\"18 degrees and sunny\",\"tool_name\":\"get_weather\"}]}";
            TestServer.Reply answer = server.postForReply("/api/chat", followUp);
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.json().get("done").asBoolean()).isTrue();
            String prompt = server.runs("m").getLast().get("prompt").asText();
            assertThat(prompt).contains("18 degrees and sunny").contains("get_weather").contains("Paris");
        }
    }

    @Test
    void versionTagsShowAndPsDescribeTheModels() throws Exception {
        try (TestServer server = TestServer.in(dir).model("qwen3-1.7b", Map.of("thinking", "1"))
                .sidecar("qwen3-1.7b", THINKING_SIDECAR).start()) {
            TestServer.Reply version = server.getForReply("/api/version");
            assertThat(version.status()).isEqualTo(200);
            assertThat(version.json().get("version").asText()).matches("\\d+\\.\\d+\\.\\d+");

            JsonNode tags = server.getForReply("/api/tags").json();
            assertThat(tags.get("models")).hasSize(1);
            JsonNode model = tags.at("/models/0");
            assertThat(model.get("name").asText()).isEqualTo("qwen3-1.7b:latest");
            assertThat(model.get("model").asText()).isEqualTo("qwen3-1.7b:latest");
            assertThat(Instant.parse(model.get("modified_at").asText())).isNotNull();
            Path file = dir.resolve("models/qwen3-1.7b/qwen3-1.7b.rkllm");
            assertThat(model.get("size").asLong()).isEqualTo(Files.size(file));
            assertThat(model.get("digest").asText()).matches("[0-9a-f]{64}");
            JsonNode details = model.get("details");
            assertThat(details.get("format").asText()).isEqualTo("rkllm");
            assertThat(details.get("family").asText()).isEqualTo("qwen3");
            assertThat(details.get("parameter_size").asText()).isEqualTo("1.7B");
            assertThat(details.has("quantization_level")).isTrue();

            JsonNode show = server.postForReply("/api/show", "{\"model\":\"qwen3-1.7b:latest\"}").json();
            assertThat(show.at("/details/family").asText()).isEqualTo("qwen3");
            assertThat(show.get("capabilities")).extracting(JsonNode::asText)
                    .containsExactly("completion", "tools", "thinking");
            assertThat(show.at("/model_info/qwen3.context_length").asInt()).isEqualTo(4096);
            assertThat(show.get("modelfile").asText()).contains("FROM qwen3-1.7b.rkllm");
            assertThat(show.get("parameters").asText()).contains("num_ctx");
            assertThat(server.postForReply("/api/show", "{\"name\":\"qwen3\"}").status()).isEqualTo(200);

            assertThat(server.getForReply("/api/ps").json().get("models")).isEmpty();
            server.postForReply("/api/chat", chat("hi", "\"model\":\"qwen3-1.7b\",\"stream\":false"));
            JsonNode ps = server.getForReply("/api/ps").json().at("/models/0");
            assertThat(ps.get("name").asText()).isEqualTo("qwen3-1.7b:latest");
            assertThat(Instant.parse(ps.get("expires_at").asText())).isAfter(Instant.now());
            assertThat(ps.get("size_vram").asLong()).isEqualTo(Files.size(file));
            assertThat(ps.get("context_length").asInt()).isEqualTo(4096);
            assertThat(ps.at("/details/format").asText()).isEqualTo("rkllm");
        }
    }

    @Test
    void emptyMessagesLoadTheModelAndKeepAliveZeroUnloadsIt() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            JsonNode load = server.postForReply("/api/chat", "{\"model\":\"m\",\"messages\":[]}").json();
            assertThat(load.get("done").asBoolean()).isTrue();
            assertThat(load.get("done_reason").asText()).isEqualTo("load");
            assertThat(load.at("/message/content").asText()).isEmpty();
            assertThat(server.getForReply("/api/ps").json().get("models")).hasSize(1);
            JsonNode unload = server.postForReply("/api/generate", "{\"model\":\"m\",\"keep_alive\":0}").json();
            assertThat(unload.get("done_reason").asText()).isEqualTo("unload");
            assertThat(unload.get("response").asText()).isEmpty();
            assertThat(server.getForReply("/api/ps").json().get("models")).isEmpty();
        }
    }

    @Test
    void errorsAreOllamaShapedBeforeTheStreamAndALineAfterIt() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "error_after=3")).start()) {
            TestServer.Reply unknown = server.postForReply("/api/chat", "{\"model\":\"nope\",\"messages\":"
                    + "[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.header("Content-Type")).startsWith("application/json");
            assertThat(unknown.json().fieldNames()).toIterable().containsExactly("error");
            assertThat(unknown.json().get("error").asText()).contains("nope");

            for (String bad : List.of("{\"model\":", chat("hi", "\"format\":42"),
                    chat("hi", "\"options\":{\"temperature\":\"hot\"}"),
                    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"?\",\"images\":[\"iVBO\"]}]}")) {
                TestServer.Reply reply = server.postForReply("/api/chat", bad);
                assertThat(reply.status()).as(bad).isEqualTo(400);
                assertThat(reply.json().get("error").isTextual()).isTrue();
            }
            assertThat(server.postForReply("/api/show", "{\"model\":\"nope\"}").status()).isEqualTo(404);

            Lines lines = Lines.read(server, "/api/chat", chat("[[tokens:20]]", ""));
            JsonNode last = lines.last();
            assertThat(last.fieldNames()).toIterable().containsExactly("error");
            assertThat(last.get("error").asText()).contains("failed");
            assertThat(lines.lines().subList(0, lines.lines().size() - 1))
                    .allSatisfy(l -> assertThat(l.get("done").asBoolean()).isFalse());

            TestServer.Reply whole = server.postForReply("/api/generate", "{\"model\":\"m\",\"stream\":false,"
                    + "\"prompt\":\"[[tokens:20]]\"}");
            assertThat(whole.status()).isEqualTo(500);
            assertThat(whole.json().get("error").asText()).contains("failed");
        }
    }
}
