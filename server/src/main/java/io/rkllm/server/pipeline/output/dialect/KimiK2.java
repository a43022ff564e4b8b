package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.KimiCalls;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * Kimi K2 (Instruct and Thinking): {@code <think>} reasoning (a call may end it unclosed) and calls in {@code <|tool_calls_section_begin|>...<|tool_calls_section_end|>}.
 */
final class KimiK2 implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", new KimiCalls()),
                    // calls without their section, as Kimi K2 Thinking writes them at times
                    new ToolBlock("<|tool_call_begin|>", List.of(), new KimiCalls(), false, true)))
            .withCallsEndingReasoning();

    @Override
    public String name() {
        return "kimi-k2";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<|tool_calls_section_begin|>") && template.contains("<|tool_call_begin|>");
    }
}
