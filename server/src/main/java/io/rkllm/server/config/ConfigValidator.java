package io.rkllm.server.config;

import io.rkllm.ffm.Abi;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Checks value ranges after binding; each failure names the key. */
final class ConfigValidator {
    private static final Set<String> STRATEGIES = Set.of("derive", "model");
    /** {@code models.max_memory}: auto, or a number of bytes with an optional binary suffix. */
    static final Pattern MEMORY = Pattern.compile("(?i)auto|\\d{1,15}\\s*[kmgt]?b?");
    private static final Set<String> LEVELS = Set.of("trace", "debug", "info", "warn", "error", "off");

    private ConfigValidator() {
    }

    static void validate(ServerConfig c) {
        require(!c.server().host().isBlank(), "server.host", "must not be empty");
        require(c.server().port() >= 0 && c.server().port() <= 65535, "server.port",
                "must be between 0 and 65535 (0 = any free port), got " + c.server().port());
        try {
            Abi.parseChoice(c.runtime().abi());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("runtime.abi: " + e.getMessage());
        }
        require(c.models().maxLoaded() >= 1, "models.max_loaded", "must be at least 1");
        require(MEMORY.matcher(c.models().maxMemory()).matches(), "models.max_memory",
                "must be auto, 0 (no limit) or a size such as 6G or 4096M, got '" + c.models().maxMemory() + "'");
        require(c.embeddings().maxWaiting() >= 1, "embeddings.max_waiting", "must be at least 1");
        positive(c.embeddings().waitTimeout(), "embeddings.wait_timeout");
        require(c.embeddings().maxInputs() >= 1, "embeddings.max_inputs", "must be at least 1");
        positive(c.models().loadTimeout(), "models.load_timeout");
        notNegative(c.models().idleUnload(), "models.idle_unload");
        require(c.queue().maxWaiting() >= 0, "queue.max_waiting", "must not be negative");
        positive(c.queue().waitTimeout(), "queue.wait_timeout");
        positive(c.queue().keepAlive(), "queue.keep_alive");
        notNegative(c.timeouts().firstToken(), "timeouts.first_token");
        notNegative(c.timeouts().silence(), "timeouts.silence");
        notNegative(c.timeouts().total(), "timeouts.total");
        require(c.generation().defaultMaxTokens() >= 0, "generation.default_max_tokens", "must not be negative");
        require(c.generation().reservedOutputTokens() >= 0, "generation.reserved_output_tokens",
                "must not be negative");
        require(c.cache().slots().equals("auto") || c.cache().slots().matches("[1-8]"), "cache.slots",
                "must be auto or a number from 1 to 8, got '" + c.cache().slots() + "'");
        for (var task : Map.of("tasks.title", c.tasks().title(), "tasks.tags", c.tasks().tags(),
                "tasks.follow_ups", c.tasks().followUps(), "tasks.queries", c.tasks().queries(),
                "tasks.autocomplete", c.tasks().autocomplete(), "tasks.other", c.tasks().other()).entrySet()) {
            require(STRATEGIES.contains(task.getValue()), task.getKey(), "must be one of " + STRATEGIES);
        }
        require(c.tasks().maxTokens() >= 1, "tasks.max_tokens", "must be at least 1");
        positive(c.server().idleTimeout(), "server.idle_timeout");
        for (String key : c.security().apiKeys()) {
            require(!key.isEmpty() && key.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f), "security.api_keys",
                    "a key must be printable ASCII without spaces (it travels in an HTTP header)");
        }
        for (String origin : c.security().corsOrigins()) {
            require(origin.equals("*") || origin.matches("https?://[^/\\s]+"), "security.cors_origins",
                    "'" + origin + "' is not an origin: scheme://host[:port] without a path, or *");
        }
        Limits.check(c.limits());
        require(LEVELS.contains(c.logging().level().toLowerCase(Locale.ROOT)), "logging.level",
                "must be one of " + LEVELS);
    }

    /** Ranges of the request limits. */
    private static final class Limits {
        static void check(ServerConfig.Limits l) {
            require(l.maxBodyMb() >= 1 && l.maxBodyMb() <= 1024, "limits.max_body_mb", "must be between 1 and 1024");
            require(l.maxMessages() >= 1, "limits.max_messages", "must be at least 1");
            require(l.maxTokens() >= 1, "limits.max_tokens", "must be at least 1");
            require(l.maxStop() >= 0, "limits.max_stop", "must not be negative");
            require(l.maxStopLength() >= 1, "limits.max_stop_length", "must be at least 1");
            require(l.maxTools() >= 0, "limits.max_tools", "must not be negative");
        }
    }

    private static void positive(Duration d, String key) {
        require(!d.isNegative() && !d.isZero(), key, "must be longer than zero");
    }

    private static void notNegative(Duration d, String key) {
        require(!d.isNegative(), key, "must not be negative (0 turns it off)");
    }

    private static void require(boolean ok, String key, String problem) {
        if (!ok) {
            throw new ConfigException(key + ": " + problem);
        }
    }
}
