package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.calls.InvokeTags;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Block;
import io.rkllm.server.pipeline.output.Syntax.ToolBlock;
import java.util.List;

/**
 * DeepSeek V3.2: {@code <think>} reasoning (its prompt opens it when thinking is on) and DSML calls, {@code <｜DSML｜function_calls>} around {@code <｜DSML｜invoke name=...>} and typed {@code <｜DSML｜parameter>}s.
 */
final class DeepSeekV32 implements Dialect {
    private static final Syntax SYNTAX = Syntax.of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<｜DSML｜function_calls>", "</｜DSML｜function_calls>",
                    new InvokeTags("｜DSML｜"))));

    @Override
    public String name() {
        return "deepseek-v3.2";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains("dsml_token") && template.contains("DSML");
    }
}
