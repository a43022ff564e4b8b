package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.PythonCalls;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * Liquid's LFM2 and LFM2.5: {@code <think>} reasoning and Python calls in {@code <|tool_call_start|>[f(a=1)]<|tool_call_end|>}.
 */
final class Lfm2 implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<|tool_call_start|>", "<|tool_call_end|>", new PythonCalls())));

    @Override
    public String name() {
        return "lfm2";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<|tool_call_start|>") || template.contains("<|tool_list_start|>")
                || template.contains("List of tools: [");
    }
}
