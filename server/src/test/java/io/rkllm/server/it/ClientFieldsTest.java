package io.rkllm.server.it;

import static io.rkllm.server.it.ChatCompletionsTest.chat;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fields the client libraries send (openai, the AI SDK, LangChain, Anthropic's SDK) that change what the client
 * gets: honoured, or refused with a 400 naming the field; never silently dropped (docs/api.md lists the fields
 * that are ignored because they only tune or annotate).
 */
class ClientFieldsTest {
    @TempDir
    Path dir;

    private TestServer server() {
        return TestServer.in(dir).model("m", Map.of()).sidecar("m", "family: qwen2.5\ncapabilities: {tools: true}\n")
                .start();
    }

    private static void refused(TestServer server, String path, String body, String param) throws Exception {
        TestServer.Reply reply = server.postForReply(path, body);
        assertThat(reply.status()).as(body).isEqualTo(400);
        assertThat(reply.json().at("/error/param").asText()).as(body).isEqualTo(param);
    }

    @Test
    void chatFieldsWhoseAnswerCannotBeGivenAreRefused() throws Exception {
        try (TestServer server = server()) {
            refused(server, "/v1/chat/completions", chat("hi", "\"functions\":[{\"name\":\"f\",\"parameters\":{}}]"),
                    "functions");
            refused(server, "/v1/chat/completions", chat("hi", "\"modalities\":[\"text\",\"audio\"]"), "modalities");
            refused(server, "/v1/chat/completions", chat("hi", "\"audio\":{\"voice\":\"alloy\",\"format\":\"mp3\"}"),
                    "audio");
            refused(server, "/v1/chat/completions", chat("hi", "\"web_search_options\":{}"), "web_search_options");
            refused(server, "/v1/completions", "{\"model\":\"m\",\"prompt\":\"def f(\",\"suffix\":\"return 1\"}",
                    "suffix");
            refused(server, "/v1/completions", "{\"model\":\"m\",\"prompt\":\"hi\",\"echo\":true}", "echo");
            refused(server, "/v1/completions", "{\"model\":\"m\",\"prompt\":\"hi\",\"best_of\":3}", "best_of");
            assertThat(server.runs("m")).isEmpty();

            // what only tunes or annotates is accepted as the libraries send it
            TestServer.Reply fine = server.postForReply("/v1/chat/completions", chat("[[say:ok]]",
                    "\"functions\":[],\"modalities\":[\"text\"],\"store\":false,\"metadata\":{\"a\":\"b\"},"
                            + "\"logprobs\":false,\"service_tier\":\"auto\",\"verbosity\":\"low\","
                            + "\"safety_identifier\":\"u1\",\"prediction\":null,\"stream_options\":null"));
            assertThat(fine.status()).as(fine.body()).isEqualTo(200);
            assertThat(fine.json().at("/choices/0/message/content").asText()).isEqualTo("ok");

            // the NPU's runtime reports no token probabilities: asked for, they are null (docs/api.md says so);
            // a GGUF model gives them (LlamaLogprobsTest)
            TestServer.Reply npu = server.postForReply("/v1/chat/completions", chat("[[say:ok]]",
                    "\"logprobs\":true,\"top_logprobs\":2"));
            assertThat(npu.status()).as(npu.body()).isEqualTo(200);
            assertThat(npu.json().at("/choices/0/logprobs").isNull()).isTrue();
            refused(server, "/v1/chat/completions", chat("hi", "\"top_logprobs\":2"), "top_logprobs");
        }
    }

    @Test
    void anthropicStructuredOutputGoesThroughTheSameChecks() throws Exception {
        try (TestServer server = server()) {
            String format = "\"output_config\":{\"format\":{\"type\":\"json_schema\",\"schema\":"
                    + StructuredOutputTest.SCHEMA + "}}";
            TestServer.Reply retried = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":200,"
                    + format + ",\"messages\":[{\"role\":\"user\",\"content\":\"[[json:invalid,valid]] Paris?\"}]}");
            assertThat(retried.status()).as(retried.body()).isEqualTo(200);
            assertThat(retried.header("X-RKLLM-Output-Check")).isEqualTo("retried");
            JsonNode city = TestServer.JSON.readTree(retried.json().at("/content/0/text").asText());
            assertThat(city.get("population").isInt()).isTrue();
            assertThat(server.runs("m").getFirst().get("prompt").asText()).contains("\"population\"");

            TestServer.Reply beta = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":200,"
                    + "\"output_format\":{\"type\":\"json_schema\",\"schema\":" + StructuredOutputTest.SCHEMA + "},"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"[[json:fenced]] Paris?\"}]}");
            assertThat(TestServer.JSON.readTree(beta.json().at("/content/0/text").asText()).get("city").asText())
                    .isEqualTo("sim");

            TestServer.Reply failed = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":200,"
                    + format + ",\"messages\":[{\"role\":\"user\",\"content\":\"[[json:prose,invalid]] Paris?\"}]}");
            assertThat(failed.status()).isEqualTo(422);
            assertThat(failed.json().get("type").asText()).isEqualTo("error");
            assertThat(failed.json().at("/error/type").asText()).isEqualTo("invalid_request_error");
            assertThat(failed.json().at("/error/message").asText()).contains("also when asked a second time");

            TestServer.Reply bad = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":9,"
                    + "\"output_config\":{\"format\":{\"type\":\"json_object\"}},\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"hi\"}]}");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.json().at("/error/message").asText()).contains("output_config.format");
        }
    }
}
