package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.engine.contract.AnswerShape;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.StopReason;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An answer the model ended itself is reused whole by the follow-up: its end-of-generation token, sampled and never
 * decoded, is held with its text, so that where the chat template writes the same token after the answer the
 * follow-up decodes it as its first new token. The tiny model's random weights end an answer only under a grammar,
 * and over HTTP the pipeline's JSON guidance changes the question the follow-up sends back; here the engine's prompts
 * carry the grammar alone.
 */
@Timeout(120)
class AnswerReuseTest {
    @TempDir
    static Path dir;
    static GgufModel model;

    @BeforeAll
    static void load() throws Exception {
        model = TinyGgufModel.load(dir, 1024, 2);
    }

    @AfterAll
    static void close() {
        model.close();
    }

    static ChatPrompt prompt(List<ChatPrompt.Message> messages, Optional<AnswerShape> shape) {
        String last = messages.getLast().content();
        return new ChatPrompt("tiny", new ChatPrompt.Identity("reuse", List.of(), Trim.NONE, List.of("u:" + last),
                Optional::of), new ChatPrompt.Setup("", Optional.empty(), false, Optional.empty()),
                new ChatPrompt.Messages(messages), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.of(GrammarAnswerTest.GREEDY), shape, 16, 1024));
    }

    record Run(GenerationEvent.Done end, String text) {
        int prompt() {
            return end.reusedTokens() + end.stats().prefillTokens();
        }
    }

    static Run run(ChatPrompt prompt, int tokens) {
        StringBuilder text = new StringBuilder();
        GenerationEvent.End end = model.generate(prompt, tokens, (t, n) -> text.append(t), new Cancellation());
        assertThat(end).isInstanceOf(GenerationEvent.Done.class);
        return new Run((GenerationEvent.Done) end, text.toString());
    }

    @Test
    void anAnswerTheModelEndedIsReusedWholeItsEndTokenHeldUndecoded() {
        ChatPrompt.Message question = ChatPrompt.Message.of("user", "Which unit runs the model?");
        Run json = run(prompt(List.of(question), Optional.of(new AnswerShape.JsonSchema(GrammarAnswerTest.schema(),
                Optional.empty()))), 200);
        assertThat(json.end().reason()).as(json.text()).isEqualTo(StopReason.END);

        // held: the prompt and the answer decoded, then the end token sampled and never decoded (the tiny model
        // ends with <|endoftext|> or <|im_end|>, both end-of-generation tokens for llama.cpp)
        HeldSequence held = model.loop().slots().get(0).held;
        assertThat(held.decoded()).isEqualTo(json.prompt() + json.end().stats().generateTokens());
        assertThat(held.pending()).isGreaterThanOrEqualTo(0);
        assertThat(List.of(TinyLlama.IM_END, TinyLlama.END_OF_TEXT))
                .anySatisfy(end -> assertThat(held.spelling().text()).endsWith(json.text() + end));

        Run followUp = run(prompt(List.of(question, ChatPrompt.Message.of("assistant", json.text()),
                ChatPrompt.Message.of("user", "Thanks.")), Optional.empty()), 4);
        assertThat(followUp.end().reusedTokens()).isEqualTo(json.prompt() + json.end().stats().generateTokens());
    }
}
