package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.KeyValueTags;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * GLM-4.5 to 4.7: {@code <think>} reasoning (GLM-4.7's prompt opens it) and {@code <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>}.
 */
final class Glm implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<tool_call>", "</tool_call>", new KeyValueTags())));

    @Override
    public String name() {
        return "glm";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<arg_key>") && template.contains("<arg_value>");
    }
}
