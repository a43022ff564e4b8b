package io.rkllm.server.tools;

import io.rkllm.server.config.ConfigLoader;
import java.io.PrintStream;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the launcher hands a {@link ToolCommand}: the process's environment (read once by the launcher, never again),
 * its output streams, the configuration loader with its defaults, and the log level to set (a command that runs a
 * server in its own process keeps that server's lines out of its report).
 */
public record ToolContext(Map<String, String> environment, PrintStream out, PrintStream err, ConfigLoader loader,
                          Consumer<String> logLevel) {
}
