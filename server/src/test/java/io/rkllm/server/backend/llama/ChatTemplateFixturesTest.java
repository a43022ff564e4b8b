package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.template.JinjaChatTemplate;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.engine.contract.cache.Trim;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Real models' chat templates (src/test/resources/chat-templates, their models and licences in its README) render
 * every fixture conversation byte for byte as Hugging Face transformers renders them: the expected outputs were
 * written by scripts/chat-template-fixtures with Python's jinja2 set up as transformers' apply_chat_template sets
 * it up. Each conversation goes in as the engine hands it to the backend (a {@link ChatPrompt} with its system
 * prompt, messages, tool calls, tools JSON and thinking switch) and through {@link PromptText}, as GgufModel
 * renders a turn. A conversation the template refuses (its raise_exception) must be refused here too.
 */
class ChatTemplateFixturesTest {
    private static final String ROOT = "/chat-templates/";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The date the fixtures' strftime_now answers (FIXED_DATE in the script). */
    static final Clock FIXED = Clock.fixed(Instant.parse("2025-07-04T12:00:00Z"), ZoneOffset.UTC);

    @TestFactory
    Stream<DynamicTest> everyTemplateRendersEveryConversationAsTransformersDoes() {
        JsonNode tools = read("tools.json");
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode t : read("templates.json")) {
            String file = t.get("file").asText();
            String stem = file.substring(0, file.length() - ".jinja".length());
            for (JsonNode c : read("conversations.json")) {
                String name = c.get("name").asText();
                tests.add(DynamicTest.dynamicTest(stem + " / " + name, () -> {
                    PromptText text = load(t, false);
                    ChatPrompt prompt = prompt(c, tools);
                    Optional<String> expected = text("expected/" + stem + "/" + name + ".txt");
                    if (expected.isPresent()) {
                        assertThat(text.render(prompt)).isEqualTo(expected.get());
                    } else {
                        String refusal = text("expected/" + stem + "/" + name + ".error").orElseThrow().strip();
                        assertThatThrownBy(() -> text.render(prompt)).hasMessageContaining(refusal);
                    }
                }));
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> aBosTheTokenizerAddsItselfIsTakenOutOfTheText() {
        JsonNode tools = read("tools.json");
        JsonNode conversation = read("conversations.json").get(0);
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode t : read("templates.json")) {
            String file = t.get("file").asText();
            String stem = file.substring(0, file.length() - ".jinja".length());
            tests.add(DynamicTest.dynamicTest(stem, () -> {
                String bos = t.get("bos").asText();
                String expected = text("expected/" + stem + "/" + conversation.get("name").asText() + ".txt")
                        .orElseThrow();
                String withoutBos = expected.startsWith(bos) ? expected.substring(bos.length()) : expected;
                assertThat(load(t, true).render(prompt(conversation, tools))).isEqualTo(withoutBos);
            }));
        }
        return tests.stream();
    }

    @Test
    void aTemplateJinjavaCannotRenderFallsBackToTheFamilyTemplate() {
        // a construct of Python's Jinja that Jinjava has no equivalent for (a recursive loop, calling loop(...)),
        // and a template that does not parse
        for (String source : List.of(
                "{%- for m in messages recursive %}{{ loop(m.children) }}{% endfor %}",
                "{%- for m in messages %}{{ m.content }}{% if %}{% endfor %}")) {
            List<String> problems = new ArrayList<>();
            Optional<JinjaChatTemplate> template = JinjaChatTemplate.tryOf(source, "<s>", "</s>", false, problems,
                    FIXED);
            assertThat(template).as(source).isEmpty();
            assertThat(problems).singleElement().asString().startsWith("the model's chat template failed");
            PromptTemplate family = new PromptTemplate("<|im_start|>system\nS<|im_end|>\n", "<|im_start|>user\n",
                    "<|im_end|>\n<|im_start|>assistant\n");
            ChatPrompt prompt = prompt(read("conversations.json").get(0), read("tools.json"));
            ChatPrompt.Setup setup = prompt.setup();
            ChatPrompt withFamily = new ChatPrompt(prompt.model(), prompt.identity(), new ChatPrompt.Setup(
                    setup.systemPrompt(), Optional.of(family), setup.systemInText(), setup.tools()), prompt.turns(),
                    prompt.task(), prompt.settings());
            PromptText text = new PromptText(template, "<|im_end|>");
            assertThat(text.ownTemplate()).isFalse();
            assertThat(text.render(withFamily)).isEqualTo("<|im_start|>system\nS<|im_end|>\n<|im_start|>user\n"
                    + "Hello! Who are you?<|im_end|>\n<|im_start|>assistant\n");
        }
    }

    @Test
    void aConversationTheTemplateRefusesIsAClearErrorNotAFallback() {
        JsonNode mistral = read("templates.json").findParents("file").stream()
                .filter(t -> t.get("file").asText().startsWith("mistralai-Mistral-Nemo")).findFirst().orElseThrow();
        JsonNode refused = read("conversations.json").findParents("name").stream()
                .filter(c -> c.get("name").asText().equals("refused-tool-call-id")).findFirst().orElseThrow();
        PromptText text = load(mistral, false);
        assertThat(text.ownTemplate()).isTrue();
        assertThatThrownBy(() -> text.render(prompt(refused, read("tools.json"))))
                .isInstanceOf(JinjaChatTemplate.RefusedConversation.class)
                .hasMessage("the model's chat template refused the conversation: "
                        + "Tool call IDs should be alphanumeric strings with length 9!");
    }

    private static PromptText load(JsonNode t, boolean addsBos) {
        String source = text(t.get("file").asText()).orElseThrow();
        List<String> problems = new ArrayList<>();
        Optional<JinjaChatTemplate> template = JinjaChatTemplate.tryOf(source, t.get("bos").asText(),
                t.get("eos").asText(), addsBos, problems, FIXED);
        assertThat(problems).isEmpty();
        return new PromptText(template, t.get("eos").asText());
    }

    /** The conversation as the engine hands it over: the system prompt apart, tool arguments as JSON text. */
    static ChatPrompt prompt(JsonNode c, JsonNode tools) {
        List<ChatPrompt.Message> messages = new ArrayList<>();
        for (JsonNode m : c.get("messages")) {
            List<ChatPrompt.ToolCall> calls = new ArrayList<>();
            for (JsonNode call : m.path("tool_calls")) {
                calls.add(new ChatPrompt.ToolCall(call.get("id").asText(), call.get("name").asText(),
                        call.get("arguments").asText()));
            }
            messages.add(new ChatPrompt.Message(m.get("role").asText(), m.get("content").asText(), calls,
                    Optional.ofNullable(m.get("tool_call_id")).map(JsonNode::asText)));
        }
        String system = c.path("system").asText("");
        Optional<String> toolsJson = c.has("tools") ? Optional.of(tools.get(c.get("tools").asText()).toString())
                : Optional.empty();
        String last = messages.getLast().content();
        return new ChatPrompt("fixture", new ChatPrompt.Identity(c.get("name").asText(), List.of(), Trim.NONE,
                List.of("u:" + last), Optional::of), new ChatPrompt.Setup(system, Optional.empty(), false, toolsJson),
                new ChatPrompt.Messages(messages), Optional.empty(),
                new ChatPrompt.Settings(c.path("thinking").asBoolean(false), Optional.empty(), Optional.empty(), 16,
                        4096));
    }

    private static JsonNode read(String name) {
        try {
            return JSON.readTree(text(name).orElseThrow());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Optional<String> text(String name) {
        try (InputStream in = ChatTemplateFixturesTest.class.getResourceAsStream(ROOT + name)) {
            return in == null ? Optional.empty() : Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
