package io.rkllm.tools.reliability;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.tools.ToolCommand;
import io.rkllm.server.tools.ToolContext;
import java.io.IOException;
import java.util.Set;

/** {@code rkllm-server fuzz ...}, as the launcher finds it: see {@link ReliabilityCommands#fuzz}. */
public final class FuzzTool implements ToolCommand {
    @Override
    public String name() {
        return "fuzz";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("url", "cases", "seed", "first", "concurrency", "timeout", "key", "model");
    }

    @Override
    public String usage() {
        return """
                  rkllm-server fuzz [--url URL] [--cases N] [--seed S]
                                                      send malformed and mutated requests, check every answer
                """;
    }

    @Override
    public int run(CommandLine line, ToolContext context) throws IOException, InterruptedException {
        // the server it starts here would log every malformed request: the report is what matters
        context.logLevel().accept("warn");
        return new ReliabilityCommands(context.out()).fuzz(line);
    }
}
