package io.rkllm.server.tools;

import io.rkllm.server.config.CommandLine;
import java.io.IOException;
import java.util.Set;

/**
 * A command of the tools jar ({@code rkllm-server-tools.jar}: the benches, {@code fuzz}, {@code soak},
 * {@code cds-archive}), which the launcher finds through {@link java.util.ServiceLoader} when that jar is on the
 * class path: beside the server jar, which names it in its manifest's {@code Class-Path}. The tools depend on the
 * server and never the reverse, so the server knows them only through this interface.
 */
public interface ToolCommand {
    /** The word that names it on the command line ({@code rkllm-server bench ...}). */
    String name();

    /**
     * Its options that take a value: only so that one given without its value at the end of the line is said to
     * miss its value rather than to be unknown. The command still rejects any option it does not take.
     */
    Set<String> valueOptions();

    /** Its lines in {@code --help}, indented as the server's own commands are. */
    String usage();

    /**
     * Runs the command to its end.
     *
     * @return the exit code: 0 when it did what it was asked, 1 when it failed
     * @throws io.rkllm.server.config.ConfigException for a bad option or argument (exit code 2, the message shown)
     * @throws IOException what went wrong talking to a server or writing a file (exit code 1, the message shown)
     */
    int run(CommandLine line, ToolContext context) throws IOException, InterruptedException;
}
