package io.rkllm.server.tools.launch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A coding agent's command-line client that {@code rkllm-server launch} starts against the server. */
interface AgentClient {
    /** The name on the command line ({@code launch claude}). */
    String name();

    /** The program, looked up on the PATH. */
    String program();

    /** How to install it, for the message when it is missing. */
    String installHint();

    /**
     * The program, arguments and environment that point the client at {@code target}, with the user's own
     * {@code arguments} after them; any file the client needs is written in {@code workDir}.
     */
    LaunchPlan plan(Target target, Path workDir, List<String> arguments) throws IOException;
}
