package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** POST /v1/messages (Anthropic's Messages API, text subset) against a real server on the simulated runtime. */
class AnthropicMessagesTest {
    @TempDir
    Path dir;

    private static String messages(String content, String extra) {
        return "{\"model\":\"m\",\"max_tokens\":200,\"messages\":[{\"role\":\"user\",\"content\":"
                + ChatCompletionsTest.quote(content) + "}]" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    /** A POST as Anthropic's SDKs send it: x-api-key and anthropic-version headers. */
    private static TestServer.Reply post(TestServer server, String body) throws Exception {
        Request request = new Request.Builder().url(server.url("/v1/messages"))
                .header("x-api-key", "sk-ant-test").header("anthropic-version", "2023-06-01")
                .post(RequestBody.create(body, TestServer.JSON_TYPE)).build();
        try (Response r = server.client().newCall(request).execute()) {
            return new TestServer.Reply(r.code(), r.body().string(), r.headers().toMultimap());
        }
    }

    /** One named SSE event. */
    record Event(String name, JsonNode data) {
    }

    static List<Event> events(String raw) throws Exception {
        assertThat(raw).endsWith("\n\n");
        List<Event> events = new ArrayList<>();
        for (String block : raw.substring(0, raw.length() - 2).split("\n\n")) {
            String[] lines = block.split("\n");
            assertThat(lines).as("an event is one event: line and one data: line").hasSize(2);
            assertThat(lines[0]).startsWith("event: ");
            assertThat(lines[1]).startsWith("data: ");
            String name = lines[0].substring("event: ".length());
            JsonNode data = TestServer.JSON.readTree(lines[1].substring("data: ".length()));
            assertThat(data.get("type").asText()).as("data.type names the event").isEqualTo(name);
            events.add(new Event(name, data));
        }
        return events;
    }

    @Test
    void nonStreamingMessageHasAnthropicsShapeAndExactUsage() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            TestServer.Reply reply = post(server, "{\"model\":\"m\",\"max_tokens\":100,\"system\":[{\"type\":\"text\","
                    + "\"text\":\"Be brief.\"}],\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
                    + "\"text\":\"[[say:Hello, wörld 日本!]]\"}]}],\"temperature\":0.5,\"top_k\":7}");
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.header("Content-Type")).startsWith("application/json");
            JsonNode body = reply.json();
            assertThat(body.get("id").asText()).startsWith("msg_");
            assertThat(body.get("type").asText()).isEqualTo("message");
            assertThat(body.get("role").asText()).isEqualTo("assistant");
            assertThat(body.get("model").asText()).isEqualTo("m");
            assertThat(body.get("content")).hasSize(1);
            assertThat(body.at("/content/0/type").asText()).isEqualTo("text");
            assertThat(body.at("/content/0/text").asText()).isEqualTo("Hello, wörld 日本!");
            assertThat(body.get("stop_reason").asText()).isEqualTo("end_turn");
            assertThat(body.get("stop_sequence").isNull()).isTrue();
            JsonNode run = server.runs("m").getLast();
            assertThat(body.at("/usage/input_tokens").asInt()).isEqualTo(run.get("prefill_tokens").asInt());
            assertThat(body.at("/usage/output_tokens").asInt()).isEqualTo(run.get("generate_tokens").asInt());
            assertThat(body.at("/usage/cache_read_input_tokens").asInt()).isZero();
            assertThat(run.get("prefilled_text").asText()).contains("Be brief.");
            assertThat(run.at("/sampling/temperature").asDouble()).isEqualTo(0.5);
            assertThat(run.at("/sampling/top_k").asInt()).isEqualTo(7);
        }
    }

    @Test
    void stopSequencesAndMaxTokensGiveTheirStopReasons() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            JsonNode stopped = post(server, messages("[[say:one two END three]]",
                    "\"stop_sequences\":[\"xyz\",\"END\"]")).json();
            assertThat(stopped.at("/content/0/text").asText()).isEqualTo("one two ");
            assertThat(stopped.get("stop_reason").asText()).isEqualTo("stop_sequence");
            assertThat(stopped.get("stop_sequence").asText()).isEqualTo("END");

            JsonNode cut = post(server, "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"[[tokens:40]]\"}]}").json();
            assertThat(cut.get("stop_reason").asText()).isEqualTo("max_tokens");
            assertThat(cut.at("/usage/output_tokens").asInt()).isEqualTo(5);
        }
    }

    @Test
    void streamingSendsAnthropicsEventsInOrder() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            TestServer.Reply reply = post(server, messages("[[say:Hello there, streaming world.]]",
                    "\"stream\":true"));
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.header("Content-Type")).startsWith("text/event-stream");
            List<Event> events = events(reply.body());
            List<String> names = events.stream().map(Event::name).toList();
            assertThat(names.subList(0, 3)).containsExactly("message_start", "content_block_start", "ping");
            assertThat(names.subList(names.size() - 3, names.size()))
                    .containsExactly("content_block_stop", "message_delta", "message_stop");
            assertThat(names.subList(3, names.size() - 3)).isNotEmpty().containsOnly("content_block_delta");

            JsonNode start = events.get(0).data().get("message");
            assertThat(start.get("id").asText()).startsWith("msg_");
            assertThat(start.get("type").asText()).isEqualTo("message");
            assertThat(start.get("role").asText()).isEqualTo("assistant");
            assertThat(start.get("content")).isEmpty();
            assertThat(start.get("model").asText()).isEqualTo("m");
            assertThat(start.get("stop_reason").isNull()).isTrue();
            assertThat(events.get(1).data().get("index").asInt()).isZero();
            assertThat(events.get(1).data().at("/content_block/type").asText()).isEqualTo("text");
            assertThat(events.get(1).data().at("/content_block/text").asText()).isEmpty();
            StringBuilder text = new StringBuilder();
            for (Event e : events.subList(3, events.size() - 3)) {
                assertThat(e.data().get("index").asInt()).isZero();
                assertThat(e.data().at("/delta/type").asText()).isEqualTo("text_delta");
                text.append(e.data().at("/delta/text").asText());
            }
            assertThat(text).hasToString("Hello there, streaming world.");
            assertThat(events.get(events.size() - 3).data().get("index").asInt()).isZero();
            JsonNode delta = events.get(events.size() - 2).data();
            assertThat(delta.at("/delta/stop_reason").asText()).isEqualTo("end_turn");
            assertThat(delta.at("/delta/stop_sequence").isNull()).isTrue();
            assertThat(delta.at("/usage/output_tokens").asInt()).isEqualTo(server.runs("m").getLast()
                    .get("generate_tokens").asInt());
        }
    }

    @Test
    void enabledThinkingStreamsAThinkingBlockBeforeTheTextBlock() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("thinking", "1"))
                .sidecar("m", "capabilities: {thinking: true}\nfamily: qwen3\n").start()) {
            String text = "[[say:<think>\nweigh it up\n</think>\n\nThe answer is 42.]]";
            List<Event> events = events(post(server, messages(text,
                    "\"stream\":true,\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024}")).body());
            List<String> names = events.stream().map(Event::name).distinct().toList();
            assertThat(names).containsExactly("message_start", "content_block_start", "ping", "content_block_delta",
                    "content_block_stop", "message_delta", "message_stop");
            List<JsonNode> starts = events.stream().filter(e -> e.name().equals("content_block_start"))
                    .map(e -> e.data()).toList();
            assertThat(starts).extracting(s -> s.at("/content_block/type").asText())
                    .containsExactly("thinking", "text");
            assertThat(starts).extracting(s -> s.get("index").asInt()).containsExactly(0, 1);
            StringBuilder thinking = new StringBuilder();
            StringBuilder answer = new StringBuilder();
            for (Event e : events) {
                if (e.name().equals("content_block_delta")) {
                    (e.data().get("index").asInt() == 0 ? thinking : answer)
                            .append(e.data().at("/delta/thinking").asText(e.data().at("/delta/text").asText()));
                }
            }
            assertThat(thinking).hasToString("weigh it up\n");
            assertThat(answer).hasToString("The answer is 42.");

            JsonNode whole = post(server, messages(text, "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024}"))
                    .json();
            assertThat(whole.get("content")).extracting(b -> b.get("type").asText()).containsExactly("thinking", "text");
            assertThat(whole.at("/content/0/thinking").asText()).isEqualTo("weigh it up\n");
            assertThat(whole.at("/content/1/text").asText()).isEqualTo("The answer is 42.");

            // thinking is opt-in, as on Anthropic's API: without it the model runs with thinking off
            JsonNode plain = post(server, messages("Why?", "")).json();
            assertThat(plain.get("content")).extracting(b -> b.get("type").asText()).containsExactly("text");
            assertThat(server.runs("m").getLast().get("prefilled_text").asText()).endsWith("<think>\n\n</think>\n\n");
        }
    }

    @Test
    void errorsAreAnthropicShaped() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "error_after=3")).start()) {
            assertError(post(server, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
                    400, "invalid_request_error", "max_tokens");
            assertError(post(server, messages("hi", "\"model\":\"nope\"").replace("\"model\":\"m\",", "")),
                    404, "not_found_error", "nope");
            assertError(post(server, "{\"model\":"), 400, "invalid_request_error", "JSON");
            assertError(post(server, messages("hi", "\"stream\":true,\"tools\":[{\"name\":\"x\"}]")),
                    400, "invalid_request_error", "input_schema");
            assertError(post(server, "{\"model\":\"m\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":"
                    + "[{\"type\":\"image\",\"source\":{}}]}]}"), 400, "invalid_request_error", "image");

            List<Event> events = events(post(server, messages("[[tokens:20]]", "\"stream\":true")).body());
            Event last = events.getLast();
            assertThat(last.name()).isEqualTo("error");
            assertThat(last.data().at("/error/type").asText()).isEqualTo("api_error");
            assertThat(last.data().at("/error/message").asText()).contains("failed");
            assertThat(events).extracting(Event::name).doesNotContain("message_stop");
        }
    }

    private static void assertError(TestServer.Reply reply, int status, String type, String mention) {
        assertThat(reply.status()).isEqualTo(status);
        assertThat(reply.header("Content-Type")).startsWith("application/json");
        JsonNode body = reply.json();
        assertThat(body.get("type").asText()).isEqualTo("error");
        assertThat(body.at("/error/type").asText()).isEqualTo(type);
        assertThat(body.at("/error/message").asText()).contains(mention);
    }
}
