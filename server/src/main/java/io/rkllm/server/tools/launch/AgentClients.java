package io.rkllm.server.tools.launch;

import java.util.List;

/** The coding agents {@code rkllm-server launch} knows, in the order its help lists them. */
final class AgentClients {
    private AgentClients() {
    }

    static List<AgentClient> all() {
        return List.of(new ClaudeCode(), new CodexCli(), new OpenCode(), new ContinueCli());
    }
}
