package io.rkllm.tools.reliability;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.tools.ToolCommand;
import io.rkllm.server.tools.ToolContext;
import java.io.IOException;
import java.util.Set;

/** {@code rkllm-server soak ...}, as the launcher finds it: see {@link ReliabilityCommands#soak}. */
public final class SoakTool implements ToolCommand {
    @Override
    public String name() {
        return "soak";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("url", "model", "requests", "clients", "disconnects", "non-streaming", "rounds", "padding",
                "seed", "timeout", "key", "trace", "pid", "prefill-tps", "decode-tps");
    }

    @Override
    public String usage() {
        return """
                  rkllm-server soak [--url URL --model ID] [--requests N] [--clients C]
                                                      concurrent streams with disconnects, check leaks and order
                                                      (docs/reliability.md)
                """;
    }

    @Override
    public int run(CommandLine line, ToolContext context) throws IOException, InterruptedException {
        // the server it starts here would log every request of the soak: the report is what matters
        context.logLevel().accept("warn");
        return new ReliabilityCommands(context.out()).soak(line);
    }
}
