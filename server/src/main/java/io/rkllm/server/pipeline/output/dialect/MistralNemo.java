package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.JsonCalls;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * Mistral Nemo (and Mistral 7B v0.3): a JSON list of calls after {@code [TOOL_CALLS]} to the end of the output.
 */
final class MistralNemo implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(), List.of(ToolBlock.toEnd("[TOOL_CALLS]", new JsonCalls())))
            .withCallIds(Syntax.CallIds.NINE_ALPHANUMERICS);

    @Override
    public String name() {
        return "mistral-nemo";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("[TOOL_CALLS]") && !template.contains("[ARGS]");
    }
}
