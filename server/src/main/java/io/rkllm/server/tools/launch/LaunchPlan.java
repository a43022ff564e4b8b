package io.rkllm.server.tools.launch;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How one agent is started against the server: the program and its arguments, the environment variables set for it,
 * and the files written for it (only inside the launch's temporary directory, removed when the agent exits).
 */
record LaunchPlan(String program, List<String> arguments, Map<String, String> environment, List<Path> files) {
    LaunchPlan {
        arguments = List.copyOf(arguments);
        environment = Map.copyOf(environment);
        files = List.copyOf(files);
    }
}
