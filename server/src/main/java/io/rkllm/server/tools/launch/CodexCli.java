package io.rkllm.server.tools.launch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.llama.text.JsonString;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * OpenAI's Codex CLI over the Responses API: a model provider for the server given as {@code -c} overrides on its
 * command line, so that the user's own {@code ~/.codex/config.toml} (and its sessions and credentials) is not
 * changed, and a model catalog in the launch's temporary directory.
 */
final class CodexCli implements AgentClient {
    static final String PROVIDER = "rkllm";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "codex";
    }

    @Override
    public String program() {
        return "codex";
    }

    @Override
    public String installHint() {
        return "npm install -g @openai/codex";
    }

    @Override
    public LaunchPlan plan(Target target, Path workDir, List<String> arguments) throws IOException {
        Path catalog = workDir.resolve("codex-models.json");
        Files.writeString(catalog, catalog(target));
        List<String> args = new ArrayList<>();
        for (String setting : List.of(
                "model_provider=" + toml(PROVIDER),
                "model=" + toml(target.model()),
                "model_providers." + PROVIDER + ".name=" + toml("rkllm-server"),
                "model_providers." + PROVIDER + ".base_url=" + toml(target.baseUrl() + "/v1"),
                "model_providers." + PROVIDER + ".wire_api=" + toml("responses"),
                "model_providers." + PROVIDER + ".env_key=" + toml("RKLLM_API_KEY"),
                // so that Codex compacts its conversation before the server's context is full
                "model_context_window=" + target.contextLength(),
                "model_catalog_json=" + toml(catalog.toString()),
                // a hosted tool (Codex offers it by default): nothing runs it here
                "web_search=" + toml("disabled"),
                "analytics.enabled=false",
                "check_for_update_on_startup=false")) {
            args.add("-c");
            args.add(setting);
        }
        args.addAll(arguments);
        return new LaunchPlan(program(), args, Map.of("RKLLM_API_KEY", target.keyOrPlaceholder()), List.of(catalog));
    }

    /**
     * The model as Codex's catalog describes it, as {@code ollama launch codex} writes it: its real context window,
     * and no base instructions (Codex's own run to 17,700 characters, about 4,000 tokens, more than half of a small
     * model's context before the user's first word).
     */
    private static String catalog(Target target) {
        ObjectNode model = JSON.createObjectNode();
        model.put("slug", target.model());
        model.put("display_name", target.model());
        model.put("context_window", target.contextLength());
        model.put("shell_type", "default");
        model.put("visibility", "list");
        model.put("supported_in_api", true);
        model.put("priority", 0);
        model.putObject("truncation_policy").put("mode", "bytes").put("limit", 10_000);
        model.putArray("input_modalities").add("text");
        model.put("base_instructions", "");
        model.put("support_verbosity", true);
        model.put("default_verbosity", "low");
        model.put("supports_parallel_tool_calls", false);
        model.put("supports_reasoning_summaries", false);
        model.putArray("supported_reasoning_levels");
        model.putArray("experimental_supported_tools");
        ObjectNode root = JSON.createObjectNode();
        root.putArray("models").add(model);
        return root.toString();
    }

    /** A JSON string is a TOML basic string too: the same escapes, control characters included. */
    private static String toml(String value) {
        return JsonString.quote(value);
    }
}
