package io.rkllm.tools.archive;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.tools.ToolCommand;
import io.rkllm.server.tools.ToolContext;
import java.util.Set;

/** {@code rkllm-server cds-archive}, as the launcher finds it: see {@link ArchiveTraining}. */
public final class CdsArchiveTool implements ToolCommand {
    @Override
    public String name() {
        return "cds-archive";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of();
    }

    @Override
    public String usage() {
        return """
                  rkllm-server cds-archive            serve once on the simulated runtime, one request of each
                                                      kind, and exit: with the unit's JVM options the JVM writes
                                                      its class-data-sharing archive then (the package does it)
                """;
    }

    @Override
    public int run(CommandLine line, ToolContext context) {
        if (!line.configFlags().isEmpty() || !line.commandOptions().isEmpty() || !line.arguments().isEmpty()) {
            throw new ConfigException("cds-archive takes no options");
        }
        return ArchiveTraining.command(context.loader(), context.environment(), context.out(), context.err()) ? 0 : 1;
    }
}
