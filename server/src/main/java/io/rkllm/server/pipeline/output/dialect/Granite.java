package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.JsonCalls;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * IBM Granite 3.x: {@code <think>} reasoning, the answer in {@code <response>...</response>}, and a JSON list of calls after {@code <|tool_call|>} to the end of the output; Granite 4 writes Hermes' {@code <tool_call>} blocks.
 */
final class Granite implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.toEnd("<|tool_call|>", new JsonCalls()),
                    ToolBlock.between("<tool_call>", "</tool_call>", new JsonCalls())))
            .withSilent("<response>", "</response>");

    @Override
    public String name() {
        return "granite";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<|tool_call|>") && template.contains("<|start_of_role|>");
    }
}
