package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw prompts on an RKLLM model (the simulated runtime through the real binding): the runtime wraps every prompt in
 * its chat template, so a raw prompt empties it for the run and the next chat puts the family's back; a model of a
 * family whose template the server does not know keeps it (the prompt goes through it, and the response says so);
 * a suffix is refused, the runtime having no tokens to place it with.
 */
class RkllmRawPromptTest {
    @TempDir
    Path dir;

    private TestServer server() {
        return TestServer.in(dir).model("q", Map.of()).sidecar("q", "family: qwen2.5\n").model("m", Map.of())
                .start();
    }

    private static List<JsonNode> templates(TestServer server) {
        return server.trace("q").stream().filter(t -> t.path("call").asText().equals("set_chat_template")).toList();
    }

    @Test
    void aCompletionsPromptReachesTheRuntimeWithoutATemplateAndTheNextChatHasItBack() throws Exception {
        try (TestServer server = server()) {
            String prompt = "[[say:upon a time]] Once";
            TestServer.Reply completion = server.postForReply("/v1/completions", "{\"model\":\"q\",\"prompt\":\""
                    + prompt + "\"}");
            assertThat(completion.status()).as(completion.body()).isEqualTo(200);
            assertThat(completion.json().at("/choices/0/text").asText()).isEqualTo("upon a time");
            assertThat(completion.header("X-RKLLM-Prompt")).isNull();
            JsonNode emptied = templates(server).getLast();
            assertThat(List.of(emptied.get("system_prompt").asText(), emptied.get("prompt_prefix").asText(),
                    emptied.get("prompt_postfix").asText())).containsOnly("");
            assertThat(server.runs("q").getLast().get("prefilled_text").asText()).isEqualTo(prompt);

            TestServer.Reply chat = server.postForReply("/v1/chat/completions", "{\"model\":\"q\",\"messages\":[{"
                    + "\"role\":\"user\",\"content\":\"[[say:ok]] Hi\"}]}");
            assertThat(chat.json().at("/choices/0/message/content").asText()).isEqualTo("ok");
            assertThat(templates(server).getLast().get("prompt_prefix").asText()).isEqualTo("<|im_start|>user\n");
            assertThat(server.runs("q").getLast().get("prefilled_text").asText())
                    .contains("<|im_start|>user\n[[say:ok]] Hi<|im_end|>");

            // Ollama's raw prompt is read the same way
            TestServer.Reply ollama = server.postForReply("/api/generate", "{\"model\":\"q\",\"stream\":false,"
                    + "\"raw\":true,\"prompt\":\"" + prompt + "\"}");
            assertThat(ollama.json().get("response").asText()).isEqualTo("upon a time");
            assertThat(server.runs("q").getLast().get("prefilled_text").asText()).isEqualTo(prompt);
        }
    }

    @Test
    void aModelOfAFamilyWithoutAKnownTemplateReadsItThroughItsOwnAndSaysSo() throws Exception {
        try (TestServer server = server()) {
            TestServer.Reply completion = server.postForReply("/v1/completions", "{\"model\":\"m\","
                    + "\"prompt\":\"[[say:ok]] Once\"}");
            assertThat(completion.status()).as(completion.body()).isEqualTo(200);
            assertThat(completion.header("X-RKLLM-Prompt")).startsWith("templated:");
            assertThat(server.trace("m")).noneMatch(t -> t.path("call").asText().equals("set_chat_template"));
            assertThat(server.runs("m").getLast().get("prefilled_text").asText())
                    .contains("<|im_start|>user\n[[say:ok]] Once<|im_end|>");
        }
    }

    @Test
    void aChatWithToolsAfterARawPromptHasTheTemplateBack() throws Exception {
        try (TestServer server = TestServer.in(dir).model("t", Map.of())
                .sidecar("t", "family: qwen2.5\ncapabilities: {tools: true}\n").start()) {
            assertThat(server.postForReply("/v1/completions", "{\"model\":\"t\",\"prompt\":\"[[say:upon]] Once\"}")
                    .status()).isEqualTo(200);
            TestServer.Reply chat = server.postForReply("/v1/chat/completions", "{\"model\":\"t\",\"messages\":[{"
                    + "\"role\":\"user\",\"content\":\"[[say:ok]] Hi\"}]," + StructuredOutputTest.TOOLS + "}");
            assertThat(chat.status()).as(chat.body()).isEqualTo(200);
            assertThat(server.runs("t").getLast().get("prefilled_text").asText())
                    .contains("<|im_start|>user\n[[say:ok]] Hi<|im_end|>");
        }
    }

    @Test
    void aRawPromptIsReadOnAnEmptyCacheAndNotKeptAsAConversation() throws Exception {
        // a system block of the model's own, which a chat leaves in the cache
        try (TestServer server = TestServer.in(dir).model("s", Map.of()).sidecar("s", "family: qwen2.5\n"
                + "chat_template:\n  system_prompt: \"<|im_start|>system\\nHOUSE RULES<|im_end|>\\n\"\n"
                + "  prompt_prefix: \"<|im_start|>user\\n\"\n"
                + "  prompt_postfix: \"<|im_end|>\\n<|im_start|>assistant\\n\"\n").start()) {
            String hi = "{\"model\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]] Hi\"}]}";
            assertThat(server.postForReply("/v1/chat/completions", hi).status()).isEqualTo(200);
            TestServer.Reply raw = server.postForReply("/v1/completions", "{\"model\":\"s\",\"prompt\":\"[[say:upon]]"
                    + " Once\"}");
            assertThat(raw.json().at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();
            JsonNode run = server.runs("s").getLast();
            assertThat(run.get("cache_before").asInt()).isZero();
            assertThat(run.get("prefilled_text").asText()).isEqualTo("[[say:upon]] Once");
            // a chat that sends the raw prompt and its answer back is read whole, through the template
            TestServer.Reply chat = server.postForReply("/v1/chat/completions", "{\"model\":\"s\",\"messages\":["
                    + "{\"role\":\"user\",\"content\":\"[[say:upon]] Once\"},{\"role\":\"assistant\",\"content\":"
                    + "\"upon\"},{\"role\":\"user\",\"content\":\"[[say:ok]] More\"}]}");
            assertThat(chat.status()).as(chat.body()).isEqualTo(200);
            assertThat(server.runs("s").getLast().get("prefilled_text").asText())
                    .startsWith("<|im_start|>system\nHOUSE RULES").contains("<|im_start|>user\n");
        }
    }

    @Test
    void aSuffixIsRefused() throws Exception {
        try (TestServer server = server()) {
            TestServer.Reply openai = server.postForReply("/v1/completions", "{\"model\":\"q\",\"prompt\":\"def f(\","
                    + "\"suffix\":\")\"}");
            assertThat(openai.status()).as(openai.body()).isEqualTo(400);
            assertThat(openai.json().at("/error/param").asText()).isEqualTo("suffix");
            assertThat(openai.json().at("/error/message").asText()).contains("RKLLM runtime");
            TestServer.Reply ollama = server.postForReply("/api/generate", "{\"model\":\"q\",\"stream\":false,"
                    + "\"prompt\":\"def f(\",\"suffix\":\")\"}");
            assertThat(ollama.status()).as(ollama.body()).isEqualTo(400);
            assertThat(server.runs("q")).isEmpty();
        }
    }
}
