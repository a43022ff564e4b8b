package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.NameThenArgs;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * Mistral Small 3.2, Devstral, Ministral and Magistral: {@code [TOOL_CALLS]NAME[ARGS]{json}} for each call to the end of the output, and Magistral's and Ministral's {@code [THINK]...[/THINK]} reasoning.
 */
final class Mistral implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("[THINK]", "[/THINK]")),
            List.of(ToolBlock.toEnd("[TOOL_CALLS]", new NameThenArgs())))
            .withCallIds(Syntax.CallIds.NINE_ALPHANUMERICS);

    @Override
    public String name() {
        return "mistral";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("[TOOL_CALLS]") && template.contains("[ARGS]");
    }
}
