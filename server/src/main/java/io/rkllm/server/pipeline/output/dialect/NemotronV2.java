package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.JsonCalls;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * NVIDIA Nemotron Nano v2: {@code <think>} reasoning and a JSON list of calls in {@code <TOOLCALL>[...]</TOOLCALL>}.
 */
final class NemotronV2 implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<TOOLCALL>", "</TOOLCALL>", new JsonCalls())));

    @Override
    public String name() {
        return "nemotron-v2";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<TOOLCALL>");
    }
}
