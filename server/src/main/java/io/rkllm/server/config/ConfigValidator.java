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
    private static final Set<String> SWITCHES = Set.of("auto", "on", "off", "true", "false");
    private static final Set<String> THINKING_FLAGS = Set.of("auto", "always", "never");
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
        require(THINKING_FLAGS.contains(c.runtime().thinkingFlag()), "runtime.thinking_flag",
                "must be one of " + THINKING_FLAGS + ", got '" + c.runtime().thinkingFlag() + "'");
        require(SWITCHES.contains(c.runtime().eosGuard()), "runtime.eos_guard",
                "must be one of " + SWITCHES + ", got '" + c.runtime().eosGuard() + "'");
        require(c.models().maxLoaded() >= 1, "models.max_loaded", "must be at least 1");
        require(SWITCHES.contains(c.security().allowPull()), "security.allow_pull",
                "must be one of " + SWITCHES + ", got '" + c.security().allowPull() + "'");
        ServerConfig.Llama llama = c.engines().llama();
        require(llama.threads() >= 0, "engines.llama.threads", "must not be negative (0 = the big cores)");
        require(llama.parallel() >= 1 && llama.parallel() <= 64, "engines.llama.parallel",
                "must be between 1 and 64, got " + llama.parallel());
        require(llama.context() == 0 || llama.context() >= 256, "engines.llama.context",
                "must be 0 (the model's own, capped by memory) or at least 256, got " + llama.context());
        require(llama.gpuLayers() >= -1, "engines.llama.gpu_layers", "must be -1 (the library's default) or more");
        require(llama.promptCacheMb() >= 0, "engines.llama.prompt_cache_mb",
                "must be 0 (none) or more, got " + llama.promptCacheMb());
        require(java.util.List.of("auto", "shared", "per_conversation").contains(llama.kvCache()),
                "engines.llama.kv_cache", "must be auto, shared or per_conversation, got '" + llama.kvCache() + "'");
        require(MEMORY.matcher(c.models().maxMemory()).matches(), "models.max_memory",
                "must be auto, 0 (no limit) or a size such as 6G or 4096M, got '" + c.models().maxMemory() + "'");
        require(SWITCHES.contains(c.models().memoryCheck()), "models.memory_check",
                "must be one of " + SWITCHES + ", got '" + c.models().memoryCheck() + "'");
        require(c.models().memoryBudgetMb() >= 0, "models.memory_budget_mb",
                "must not be negative (0 = the memory the machine has available)");
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
        require(c.cache().trimTo() >= 0.1 && c.cache().trimTo() <= 1.0, "cache.trim_to",
                "must be between 0.1 and 1.0, got " + c.cache().trimTo());
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
        VisionKeys.check(c.vision());
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
            require(l.storedResponses() >= 0, "limits.stored_responses", "must not be negative");
            require(l.maxImages() >= 0, "limits.max_images", "must not be negative");
        }
    }

    /** The vision keys. */
    private static final class VisionKeys {
        static final Set<String> TEXT_MODEL_IMAGES = Set.of("refuse", "ignore");
        static final Set<String> CACHE_POLICIES = Set.of("resend", "incremental");
        static final Set<String> CORES = Set.of("all", "auto", "0", "1", "2", "0_1", "0_1_2");

        static void check(ServerConfig.Vision v) {
            require(TEXT_MODEL_IMAGES.contains(v.textModelImages()), "vision.text_model_images",
                    "must be refuse or ignore, got '" + v.textModelImages() + "'");
            require(CACHE_POLICIES.contains(v.cachePolicy()), "vision.cache_policy",
                    "must be resend or incremental, got '" + v.cachePolicy() + "'");
            require(CORES.contains(v.encoderCores()), "vision.encoder_cores", "must be one of all, auto, 0, 1, 2,"
                    + " 0_1, 0_1_2, got '" + v.encoderCores() + "'");
            positive(v.fetchTimeout(), "vision.fetch_timeout");
            require(v.maxImageMb() >= 1 && v.maxImageMb() <= 256, "vision.max_image_mb", "must be between 1 and 256");
            require(v.maxMegapixels() >= 1 && v.maxMegapixels() <= 1000, "vision.max_megapixels",
                    "must be between 1 and 1000");
            require(v.cacheMb() >= 0, "vision.cache_mb", "must not be negative (0 turns the cache off)");
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
