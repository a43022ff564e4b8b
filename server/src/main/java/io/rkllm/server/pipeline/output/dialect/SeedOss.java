package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.XmlFunctions;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * ByteDance Seed-OSS: {@code <seed:think>} reasoning and {@code <seed:tool_call>} blocks of XML functions as Qwen3-Coder writes them.
 */
final class SeedOss implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<seed:think>", "</seed:think>")),
            List.of(ToolBlock.between("<seed:tool_call>", "</seed:tool_call>", new XmlFunctions(false))));

    @Override
    public String name() {
        return "seed-oss";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("<seed:tool_call>") || template.contains("<seed:think>");
    }
}
