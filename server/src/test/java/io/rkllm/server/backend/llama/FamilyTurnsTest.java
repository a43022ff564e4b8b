package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.ChatPrompt.Message;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptTemplate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A conversation in a family template, turn by turn: a follow-up's text starts with exactly the text the model read
 * and wrote the turn before (its prompt, its answer, the end-of-turn token it ended with).
 */
class FamilyTurnsTest {
    static final PromptTemplate CHATML = new PromptTemplate("<|im_start|>system\nBe brief.<|im_end|>\n",
            "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n");
    static final PromptTemplate LLAMA3 = new PromptTemplate(
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>",
            "<|start_header_id|>user<|end_header_id|>\n\n",
            "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
    /** Qwen3's family with thinking off: ChatML whose generation prompt ends with an empty think block. */
    static final PromptTemplate QWEN3_THINKING_OFF = new PromptTemplate(CHATML.systemPrompt(), CHATML.promptPrefix(),
            CHATML.promptPostfix() + "<think>\n\n</think>\n\n");
    static final PromptTemplate DEEPSEEK = new PromptTemplate("<｜begin▁of▁sentence｜>Be brief.", "<｜User｜>",
            "<｜Assistant｜>");

    @Test
    void aFollowUpStartsWithThePromptTheAnswerAndTheTokenThatEndedIt() {
        assertFollowUp(CHATML, "<|im_end|>", "<|im_end|>\n");
        assertFollowUp(LLAMA3, "<|eot_id|>", "<|eot_id|>");
        assertFollowUp(DEEPSEEK, "<｜end▁of▁sentence｜>", "<｜end▁of▁sentence｜>");
        // the empty think block the answer followed stays before it in every later turn, as the model read it
        assertFollowUp(QWEN3_THINKING_OFF, "<|im_end|>", "<|im_end|>\n");
    }

    private static void assertFollowUp(PromptTemplate template, String endOfTurn, String answerEnd) {
        FamilyTurns turns = new FamilyTurns(endOfTurn);
        String first = turns.render(template, "", List.of(Message.of("user", "Hi")));
        assertThat(first).isEqualTo(template.systemPrompt() + template.promptPrefix() + "Hi"
                + template.promptPostfix());
        String answer = " Hello!\n";
        String second = turns.render(template, "", List.of(Message.of("user", "Hi"), Message.of("assistant", answer),
                Message.of("user", "More")));
        assertThat(second).startsWith(first + answer + endOfTurn)
                .isEqualTo(first + answer + answerEnd + template.promptPrefix() + "More" + template.promptPostfix());
    }

    @Test
    void toolCallsAndResultsAndATemplateWithoutASystemBlock() {
        PromptTemplate plain = new PromptTemplate("", "[INST] ", " [/INST]");
        FamilyTurns turns = new FamilyTurns("</s>");
        String text = turns.render(plain, "Be brief.", List.of(Message.of("user", "Weather?"),
                new Message("assistant", "", List.of(new ChatPrompt.ToolCall("c1", "weather", "{\"city\": \"Paris\"}")),
                        Optional.empty()),
                new Message("tool", "sunny", List.of(), Optional.of("c1")), Message.of("system", "Be kind.")));
        assertThat(text).isEqualTo("[INST] Be brief.\n\nWeather? [/INST]<tool_call>\n{\"name\": \"weather\", "
                + "\"arguments\": {\"city\": \"Paris\"}}\n</tool_call></s>[INST] Tool result: sunny\n\nSystem: Be kind."
                + " [/INST]");
    }
}
