package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.XmlFunctions;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * Qwen3-Coder's XML calls, which Qwen3.5 and Nemotron 3 Nano write too: {@code <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>}, with {@code <think>} reasoning (Qwen3.5's prompt opens it when thinking is on, and a call may end it without its closing tag).
 */
final class Qwen3Coder implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<tool_call>", "</tool_call>", new XmlFunctions(true)),
                    // a call whose opening <tool_call> the model left out, as llama.cpp tolerates: at the start of the
                    // answer or of a line (within a line, "<function=" is text, as prose about the format has it)
                    new ToolBlock("<function=", List.of("</tool_call>"), new XmlFunctions(true), true, true),
                    new ToolBlock("\n<function=", List.of("</tool_call>"), new XmlFunctions(true), false, true)))
            .withCallsEndingReasoning();

    @Override
    public String name() {
        return "qwen3-coder";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<tool_call>") && template.contains("<function=") && template.contains("<parameter=");
    }
}
