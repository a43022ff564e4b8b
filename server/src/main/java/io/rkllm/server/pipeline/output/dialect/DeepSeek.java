package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.DeepSeekCalls;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * DeepSeek R1 (its distills too) and V3.1: {@code <think>} reasoning (their prompts open it) and calls in {@code <｜tool▁calls▁begin｜>...<｜tool▁calls▁end｜>}.
 */
final class DeepSeek implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", new DeepSeekCalls())));

    @Override
    public String name() {
        return "deepseek";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<｜tool▁calls▁begin｜>") || template.contains("<｜Assistant｜>");
    }
}
