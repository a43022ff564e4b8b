package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.GemmaCalls;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * Gemma 4: reasoning in {@code <|channel>thought...<channel|>} and one call in each {@code <|tool_call>call:NAME{...}<tool_call|>}.
 */
final class Gemma4 implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<|channel>thought", "<channel|>")),
            List.of(ToolBlock.between("<|tool_call>", "<tool_call|>", new GemmaCalls())))
            // stray channel markers (an empty thought, a doubled opener) are dropped, as llama.cpp does
            .withSilent("<|channel>", "<channel|>");

    @Override
    public String name() {
        return "gemma4";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<|tool_call>call:");
    }
}
