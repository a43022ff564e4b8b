package io.rkllm.server.tools.launch;

import io.rkllm.llama.text.JsonString;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Continue's CLI ({@code cn}) over chat completions (its {@code openai} provider): a configuration file of its own,
 * written in the launch's temporary directory and given with {@code --config}, so the user's
 * {@code ~/.continue/config.yaml} is not changed.
 */
final class ContinueCli implements AgentClient {
    @Override
    public String name() {
        return "continue";
    }

    @Override
    public String program() {
        return "cn";
    }

    @Override
    public String installHint() {
        return "npm install -g @continuedev/cli";
    }

    @Override
    public LaunchPlan plan(Target target, Path workDir, List<String> arguments) throws IOException {
        Path config = workDir.resolve("continue-config.yaml");
        Files.writeString(config, """
                name: rkllm-server
                version: 0.0.1
                schema: v1
                models:
                  - name: %s
                    provider: openai
                    model: %s
                    apiBase: %s/v1
                    apiKey: %s
                    roles: [chat, edit, apply]
                    capabilities: [tool_use]
                    defaultCompletionOptions:
                      contextLength: %d
                """.formatted(yaml(target.model()), yaml(target.model()), target.baseUrl(),
                yaml(target.keyOrPlaceholder()), target.contextLength()));
        List<String> args = new ArrayList<>(List.of("--config", config.toString()));
        args.addAll(arguments);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CONTINUE_CLI_ENABLE_TELEMETRY", "0");
        env.put("CONTINUE_METRICS_ENABLED", "0");
        return new LaunchPlan(program(), args, env, List.of(config));
    }

    /** A JSON string is a YAML double-quoted scalar too: the same escapes, control characters included. */
    private static String yaml(String value) {
        return JsonString.quote(value);
    }
}
