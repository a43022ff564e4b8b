package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.cache.Trim;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A GGUF model with no template of its own that renders here and no family the pipeline knows is written in ChatML,
 * as llama-server writes one, turn by turn: its follow-ups start with the text the previous turn left in the cache.
 */
class PromptTextTest {
    private static ChatPrompt prompt(String system, List<ChatPrompt.Message> messages) {
        return new ChatPrompt("plain", new ChatPrompt.Identity("c", List.of(), Trim.NONE, List.of(), Optional::of),
                new ChatPrompt.Setup(system, Optional.empty(), true, Optional.empty()),
                new ChatPrompt.Messages(messages), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.empty(), Optional.empty(), 16, 512));
    }

    @Test
    void aModelOfNoFamilyIsWrittenInChatMlWithItsSystemPromptInItsBlock() {
        PromptText text = new PromptText(Optional.empty(), "</s>");

        String first = text.render(prompt("Be brief.", List.of(ChatPrompt.Message.of("user", "Hi"))));
        String second = text.render(prompt("Be brief.", List.of(ChatPrompt.Message.of("user", "Hi"),
                ChatPrompt.Message.of("assistant", "Hello."), ChatPrompt.Message.of("user", "And?"))));

        assertThat(first).isEqualTo("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
                + "<|im_start|>assistant\n");
        // the answer as the model wrote it, closed by its own end token: what its sequence holds after the first turn
        assertThat(second).startsWith(first + "Hello.</s>").endsWith("<|im_start|>user\nAnd?<|im_end|>\n"
                + "<|im_start|>assistant\n");
        assertThat(text.render(prompt("", List.of(ChatPrompt.Message.of("user", "Hi")))))
                .isEqualTo("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    }
}
