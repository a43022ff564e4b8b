package io.rkllm.server;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.tools.ToolCommands;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The command line, and the tool commands it may name. They are looked for on the class path only when the line
 * is not one of the server's own commands, or asks for the help that lists them: serving loads none of their
 * classes, which would otherwise cost the service time and memory at every start.
 */
record ParsedCommand(CommandLine line, ToolCommands tools) {
    /** @throws ConfigException for a bad command line */
    static ParsedCommand of(String[] args, Supplier<ToolCommands> found) {
        CommandLine line;
        try {
            // the names of the tool commands make the line parse; their options only sharpen its errors
            line = CommandLine.parse(ToolCommands.SHIPPED, Set.of(), args);
            if (CommandLine.COMMANDS.contains(line.command()) && !line.help()) {
                return new ParsedCommand(line, ToolCommands.of(List.of()));
            }
        } catch (ConfigException e) {
            // perhaps a word or an option only a tool command knows: parsed again below with them
        }
        ToolCommands tools = found.get();
        return new ParsedCommand(CommandLine.parse(tools.names(), tools.valueOptions(), args), tools);
    }
}
