package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.JsonCalls;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * Cohere's Command R7B: {@code <|START_THINKING|>} reasoning, a JSON list of actions in {@code <|START_ACTION|>...<|END_ACTION|>} ({@code tool_name}, {@code parameters}), the answer between {@code <|START_RESPONSE|>} and {@code <|END_RESPONSE|>}.
 */
final class CommandR7B implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<|START_THINKING|>", "<|END_THINKING|>")),
            List.of(ToolBlock.between("<|START_ACTION|>", "<|END_ACTION|>", new JsonCalls())))
            .withSilent("<|START_RESPONSE|>", "<|END_RESPONSE|>");

    @Override
    public String name() {
        return "command-r7b";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<|START_ACTION|>") && template.contains("<|START_THINKING|>");
    }
}
