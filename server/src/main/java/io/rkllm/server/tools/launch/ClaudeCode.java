package io.rkllm.server.tools.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Claude Code over Anthropic's Messages API: everything through its environment (nothing written), every model tier
 * mapped to the server's model, and everything that calls home turned off; the variables {@code ollama launch claude}
 * sets, read from Claude Code 2.1.197 (server/src/test/resources/agents/FINDINGS.md).
 */
final class ClaudeCode implements AgentClient {
    @Override
    public String name() {
        return "claude";
    }

    @Override
    public String program() {
        return "claude";
    }

    @Override
    public String installHint() {
        return "npm install -g @anthropic-ai/claude-code";
    }

    @Override
    public LaunchPlan plan(Target target, Path workDir, List<String> arguments) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ANTHROPIC_BASE_URL", target.baseUrl());
        env.put("ANTHROPIC_AUTH_TOKEN", target.keyOrPlaceholder());
        env.put("ANTHROPIC_API_KEY", "");
        env.put("ANTHROPIC_MODEL", target.model());
        // its background calls (titles, summaries) go to the "small, fast" tier: the same local model
        env.put("ANTHROPIC_SMALL_FAST_MODEL", target.model());
        env.put("ANTHROPIC_DEFAULT_HAIKU_MODEL", target.model());
        env.put("ANTHROPIC_DEFAULT_SONNET_MODEL", target.model());
        env.put("ANTHROPIC_DEFAULT_OPUS_MODEL", target.model());
        env.put("CLAUDE_CODE_SUBAGENT_MODEL", target.model());
        // its idea of the context, so that it compacts the conversation before the server's context is full
        env.put("CLAUDE_CODE_AUTO_COMPACT_WINDOW", Integer.toString(target.contextLength()));
        env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        env.put("DISABLE_TELEMETRY", "1");
        env.put("DISABLE_AUTOUPDATER", "1");
        env.put("DISABLE_ERROR_REPORTING", "1");
        env.put("DISABLE_FEEDBACK_COMMAND", "1");
        env.put("CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "1");
        // the per-session billing line at the top of the system prompt (the server drops it anyway)
        env.put("CLAUDE_CODE_ATTRIBUTION_HEADER", "0");
        List<String> args = new ArrayList<>(List.of("--model", target.model()));
        args.addAll(arguments);
        return new LaunchPlan(program(), args, env, List.of());
    }
}
