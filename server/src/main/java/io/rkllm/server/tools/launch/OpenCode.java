package io.rkllm.server.tools.launch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * opencode over chat completions (its {@code @ai-sdk/openai-compatible} provider): its configuration given inline in
 * {@code OPENCODE_CONFIG_CONTENT}, merged over the user's own, with the model's real context so that opencode
 * compacts in time.
 */
final class OpenCode implements AgentClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "opencode";
    }

    @Override
    public String program() {
        return "opencode";
    }

    @Override
    public String installHint() {
        return "npm install -g opencode-ai";
    }

    @Override
    public LaunchPlan plan(Target target, Path workDir, List<String> arguments) {
        ObjectNode config = JSON.createObjectNode();
        config.put("$schema", "https://opencode.ai/config.json");
        config.put("model", "rkllm/" + target.model());
        config.put("small_model", "rkllm/" + target.model());
        config.put("autoupdate", false);
        config.put("share", "disabled");
        ObjectNode provider = config.putObject("provider").putObject("rkllm");
        provider.put("npm", "@ai-sdk/openai-compatible");
        provider.put("name", "rkllm-server");
        ObjectNode options = provider.putObject("options");
        options.put("baseURL", target.baseUrl() + "/v1");
        options.put("apiKey", target.keyOrPlaceholder());
        ObjectNode model = provider.putObject("models").putObject(target.model());
        model.put("name", target.model());
        model.put("tool_call", true);
        ObjectNode limit = model.putObject("limit");
        limit.put("context", target.contextLength());
        limit.put("output", Math.max(256, target.contextLength() / 4));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("OPENCODE_CONFIG_CONTENT", config.toString());
        env.put("OPENCODE_DISABLE_AUTOUPDATE", "1");
        env.put("OPENCODE_DISABLE_MODELS_FETCH", "1");
        return new LaunchPlan(program(), new ArrayList<>(arguments), env, List.of());
    }
}
