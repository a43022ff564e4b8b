package io.rkllm.server.pipeline.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** A request the pipeline rewrites keeps what the client asked for besides what is rewritten. */
class ChatRequestTest {
    @Test
    void rewritingTheThinkingKeepsTheAskForLogprobs() {
        ChatRequest request = new ChatRequest("m", List.of(ChatMessage.of(Role.USER, "hi")),
                new ChatRequest.Delivery(true, false),
                new ChatRequest.Output(OptionalInt.of(5), SamplingOverrides.NONE, List.of("x"), Optional.empty(),
                        Thinking.UNSAID, OptionalInt.of(3)),
                new ChatRequest.ToolUse(Optional.empty(), ToolChoice.AUTO, true), Optional.empty());
        ChatRequest low = request.withThinking(request.thinking().withEffort("low"));
        assertThat(low.output().logprobs()).hasValue(3);
        assertThat(low.output().maxTokens()).hasValue(5);
        assertThat(low.stop()).containsExactly("x");
        assertThat(low.thinking()).isNotEqualTo(request.thinking());
    }
}
