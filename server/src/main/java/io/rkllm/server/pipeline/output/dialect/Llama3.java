package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import io.rkllm.server.pipeline.output.calls.JsonCalls;
import io.rkllm.server.pipeline.output.calls.PythonCalls;
import java.util.List;

/**
 * Llama 3.1, 3.2 and 3.3: a call is the whole answer, a JSON object {@code {"name": ..., "parameters": {...}}} (several
 * separated by semicolons); a built-in tool's call follows {@code <|python_tag|>}, as JSON or as
 * {@code tool.call(key=value)}.
 */
final class Llama3 implements Dialect {
    private static final JsonCalls JSON = new JsonCalls();
    private static final PythonCalls PYTHON = new PythonCalls();
    private static final CallReader PYTHON_TAG = (body, tools) -> JSON.read(body, tools)
            .or(() -> PYTHON.read(body.replace(".call(", "("), tools));
    private static final Syntax SYNTAX = Syntax.of(List.of(), List.of(
            new ToolBlock("{", List.of(), JSON, true, true),
            ToolBlock.toEnd("<|python_tag|>", PYTHON_TAG)));

    @Override
    public String name() {
        return "llama3";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<|start_header_id|>")
                && (template.contains("<|python_tag|>") || template.contains("\"parameters\"")
                || template.contains("ipython"));
    }
}
