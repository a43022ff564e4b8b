package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.template.JinjaChatTemplate;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.cache.Trim;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What a follow-up can reuse of the previous turn in each real chat template (the fixtures of
 * {@link ChatTemplateFixturesTest}): the sequence holds the turn's prompt, the answer as the model wrote it and the
 * end-of-turn token it ended with; the follow-up's text, rendered by the template with that answer in its history,
 * shares a beginning with it. Where the template writes past answers differently from how it prompted them (Qwen3
 * leaves out the empty think block its generation prompt had, Llama-style templates trim, gpt-oss rewrites the final
 * channel), only what comes before the difference is reused: docs/llama-engine.md lists these.
 */
class TemplateFollowUpTest {
    static final String ANSWER = "Hello! How can I help?";

    /** How far the follow-up's text agrees with what the sequence holds. */
    enum Reuse {
        /** The prompt, the answer and the end-of-turn token. */
        ANSWER_AND_END,
        /** The prompt and the answer, not the token after it. */
        ANSWER,
        /** The prompt only: the template writes the answer differently. */
        PROMPT,
        /** Not even the whole prompt: the template writes the turn's end differently once answered. */
        PART_OF_PROMPT
    }

    /** The token a model ends an answer with, where it is not its end of text: its end of turn. */
    static final Map<String, String> END_OF_TURN = Map.of("microsoft-Phi-3.5-mini-instruct", "<|end|>",
            "openai-gpt-oss-120b", "<|return|>");

    /** What each template lets a follow-up reuse. */
    static final Map<String, Reuse> EXPECTED = Map.ofEntries(
            // their generation prompt opens or closes a think block that answers in the history do not have
            Map.entry("Qwen-Qwen3-0.6B", Reuse.PART_OF_PROMPT),
            Map.entry("Qwen-QwQ-32B", Reuse.PART_OF_PROMPT),
            Map.entry("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", Reuse.PART_OF_PROMPT),
            // an answer in the history is its final channel, closed by <|end|> where the model wrote <|return|>
            Map.entry("openai-gpt-oss-120b", Reuse.PROMPT),
            Map.entry("Qwen-Qwen2.5-7B-Instruct", Reuse.ANSWER_AND_END),
            Map.entry("deepseek-ai-DeepSeek-V3.1", Reuse.ANSWER_AND_END),
            Map.entry("Mistral-Small-3.2-24B-Instruct-2506", Reuse.ANSWER_AND_END),
            Map.entry("mistralai-Mistral-Nemo-Instruct-2407", Reuse.ANSWER_AND_END),
            Map.entry("unsloth-mistral-Devstral-Small-2507", Reuse.ANSWER_AND_END),
            Map.entry("microsoft-Phi-3.5-mini-instruct", Reuse.ANSWER_AND_END),
            Map.entry("ibm-granite-granite-3.3-2B-Instruct", Reuse.ANSWER_AND_END),
            Map.entry("ByteDance-Seed-OSS", Reuse.ANSWER_AND_END));

    @Test
    void eachTemplateKeepsWhatItWritesAlikeInBothTurns() throws IOException {
        Map<String, Reuse> found = new LinkedHashMap<>();
        for (JsonNode t : read()) {
            String file = t.get("file").asText();
            String stem = file.substring(0, file.length() - ".jinja".length());
            PromptText text = new PromptText(JinjaChatTemplate.tryOf(source(file), t.get("bos").asText(),
                    t.get("eos").asText(), false, new ArrayList<>(), ChatTemplateFixturesTest.FIXED), "");
            String first = text.render(prompt(List.of(ChatPrompt.Message.of("user", "Hi"))));
            String held = first + ANSWER + END_OF_TURN.getOrDefault(stem, t.get("eos").asText());
            String followUp = text.render(prompt(List.of(ChatPrompt.Message.of("user", "Hi"),
                    ChatPrompt.Message.of("assistant", ANSWER), ChatPrompt.Message.of("user", "More"))));
            Reuse reuse = followUp.startsWith(held) ? Reuse.ANSWER_AND_END
                    : followUp.startsWith(first + ANSWER) ? Reuse.ANSWER
                    : followUp.startsWith(first) ? Reuse.PROMPT : Reuse.PART_OF_PROMPT;
            found.put(stem, reuse);
        }
        assertThat(found).isEqualTo(EXPECTED);
    }

    static ChatPrompt prompt(List<ChatPrompt.Message> messages) {
        String last = messages.getLast().content();
        return new ChatPrompt("fixture", new ChatPrompt.Identity("follow-up", List.of(), Trim.NONE,
                List.of("u:" + last), Optional::of), new ChatPrompt.Setup("", Optional.empty(), false,
                Optional.empty()), new ChatPrompt.Messages(messages), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.empty(), Optional.empty(), 16, 4096));
    }

    private static JsonNode read() throws IOException {
        return new ObjectMapper().readTree(source("templates.json"));
    }

    private static String source(String name) throws IOException {
        try (InputStream in = TemplateFollowUpTest.class.getResourceAsStream("/chat-templates/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
