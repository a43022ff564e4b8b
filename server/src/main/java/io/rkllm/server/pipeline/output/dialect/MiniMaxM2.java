package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.InvokeTags;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * MiniMax-M2: {@code <think>} reasoning (its prompt opens it) and {@code <minimax:tool_call>} blocks of {@code <invoke name=...><parameter name=...>} calls.
 */
final class MiniMaxM2 implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<minimax:tool_call>", "</minimax:tool_call>", new InvokeTags(""))));

    @Override
    public String name() {
        return "minimax-m2";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<minimax:tool_call>");
    }
}
