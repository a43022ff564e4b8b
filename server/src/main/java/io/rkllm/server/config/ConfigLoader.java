package io.rkllm.server.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.rkllm.rag.RagOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the {@link ServerConfig}: built-in defaults, then the YAML file, then environment
 * variables ({@code RKLLM_SECTION_KEY}), then flags ({@code --section.key=value}). Every problem
 * names the key and its source.
 */
public final class ConfigLoader {
    private static final String DEFAULTS = "/rkllm-server-defaults.yaml";
    public static final String ENV_PREFIX = "RKLLM_";
    /** API keys, comma-separated: the short form of {@code RKLLM_SECURITY_API_KEYS}. */
    public static final String API_KEYS_ENV = "RKLLM_API_KEYS";
    private static final String API_KEYS = "security.api_keys";

    private final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    private final ObjectMapper binder;
    private final ObjectNode defaults;
    private final Set<String> otherEngines;

    /** Where a key's value came from, in rising precedence. */
    public enum Source { FILE, ENVIRONMENT, FLAG }

    /** The outcome: the configuration, the file it came from, and where each key set explicitly was set. */
    public record Loaded(ServerConfig config, Optional<Path> file, Map<String, Source> sources) {
        public Loaded {
            sources = Map.copyOf(sources);
        }

        public Set<String> explicitKeys() {
            return sources.keySet();
        }

        /**
         * Whether {@code --simulate} serves the bundled simulated models: simulation is on and models.dir was
         * not set where runtime.simulate was or above. So {@code models --simulate} on a board whose
         * configuration file names the real models directory still lists the simulated ones, while
         * {@code --simulate --models DIR} (or both keys in one file) simulates the runtime over DIR.
         */
        public boolean simulatedModels() {
            if (!config.runtime().simulate()) {
                return false;
            }
            Source dir = sources.get(MODELS_DIR);
            Source simulate = sources.get(SIMULATE);
            return dir == null || simulate == null || dir.compareTo(simulate) < 0;
        }
    }

    private static final String MODELS_DIR = "models.dir";
    private static final String SIMULATE = "runtime.simulate";

    /** The built-in settings only (tests, and tools that open no engine of their own). */
    public ConfigLoader(Path home) {
        this(home, Map.of());
    }

    /**
     * @param engineSettings the settings of the engines beyond the built-in ones, by engine name: each key with its
     *                       default, under {@code engines.<name>} in the file, {@code RKLLM_ENGINES_<NAME>_<KEY>} and
     *                       {@code --engines.<name>.<key>}, as for every built-in key
     */
    public ConfigLoader(Path home, Map<String, Map<String, String>> engineSettings) {
        SimpleModule module = new SimpleModule();
        module.addDeserializer(Duration.class, new DurationDeserializer());
        module.addDeserializer(Path.class, new HomePathDeserializer(home));
        binder = new ObjectMapper()
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .registerModule(module);
        try (InputStream in = ConfigLoader.class.getResourceAsStream(DEFAULTS)) {
            defaults = (ObjectNode) yaml.readTree(in);
        } catch (IOException e) {
            throw new IllegalStateException("built-in defaults unreadable", e);
        }
        // the RAG builder's measured defaults come from the rag module itself, so the two never drift apart
        ObjectNode rag = binder.valueToTree(RagOptions.defaults());
        rag.properties().forEach(e -> {
            if (e.getValue().isTextual()) {
                e.setValue(TextNode.valueOf(
                        e.getValue().asText().toLowerCase(Locale.ROOT)));
            }
        });
        defaults.set("rag", rag);
        ObjectNode engines = (ObjectNode) defaults.get("engines");
        engineSettings.forEach((engine, settings) -> {
            if (engines.has(engine)) {
                throw new IllegalArgumentException("engines." + engine + " is a built-in section");
            }
            ObjectNode section = engines.putObject(engine);
            settings.forEach(section::put);
        });
        otherEngines = Set.copyOf(engineSettings.keySet());
    }

    /** Every dotted key with its built-in default, in file order (for --help and docs). */
    public Map<String, String> defaults() {
        Map<String, String> keys = new LinkedHashMap<>();
        collect(defaults, "", keys);
        return keys;
    }

    /** The environment variable that sets {@code key}. */
    public static String envName(String key) {
        return ENV_PREFIX + key.replace('.', '_').replace('-', '_').toUpperCase(Locale.ROOT);
    }

    public Loaded load(Optional<Path> file, Map<String, String> environment, Map<String, String> flags) {
        ObjectNode tree = defaults.deepCopy();
        Set<String> known = defaults().keySet();
        Map<String, Source> explicit = new LinkedHashMap<>();
        if (file.isPresent()) {
            JsonNode fromFile = readFile(file.get());
            if (fromFile != null && !fromFile.isNull() && !fromFile.isMissingNode()) {
                if (!fromFile.isObject()) {
                    throw new ConfigException(file.get() + ": the top level must be a mapping of sections");
                }
                merge(tree, (ObjectNode) fromFile, "", known, file.get().toString(), explicit);
            }
        }
        for (String key : known) {
            String value = environment.get(envName(key));
            if (value != null) {
                set(tree, key, value);
                explicit.put(key, Source.ENVIRONMENT);
            }
        }
        String keys = environment.get(API_KEYS_ENV);
        if (keys != null && !keys.isBlank()) {
            // the short name of RKLLM_SECURITY_API_KEYS; with both set, both lists count
            String both = environment.containsKey(envName(API_KEYS)) ? environment.get(envName(API_KEYS)) + "," + keys
                    : keys;
            set(tree, API_KEYS, both);
            explicit.put(API_KEYS, Source.ENVIRONMENT);
        }
        for (var flag : flags.entrySet()) {
            String key = flag.getKey().replace('-', '_');
            if (!known.contains(key)) {
                throw new ConfigException("--" + flag.getKey() + ": unknown option (see --help for the keys)");
            }
            set(tree, key, flag.getValue());
            explicit.put(key, Source.FLAG);
        }
        ServerConfig config = bind(tree);
        ConfigValidator.validate(config);
        return new Loaded(config, file, explicit);
    }

    private JsonNode readFile(Path file) {
        try {
            return yaml.readTree(Files.readString(file));
        } catch (JsonProcessingException e) {
            throw new ConfigException(file + ": not valid YAML (" + e.getOriginalMessage() + ", line "
                    + (e.getLocation() == null ? "?" : e.getLocation().getLineNr()) + ")");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read (" + e.getMessage() + ")");
        }
    }

    private static void merge(ObjectNode target, ObjectNode source, String prefix, Set<String> known,
                              String origin, Map<String, Source> explicit) {
        Iterator<Map.Entry<String, JsonNode>> fields = source.fields();
        while (fields.hasNext()) {
            var field = fields.next();
            String key = prefix + field.getKey().replace('-', '_');
            boolean isSection = known.stream().anyMatch(k -> k.startsWith(key + "."));
            if (isSection) {
                if (field.getValue().isNull()) {
                    continue;
                }
                if (!field.getValue().isObject()) {
                    throw new ConfigException(origin + ": " + key + " must be a mapping of keys");
                }
                merge((ObjectNode) target.get(field.getKey().replace('-', '_')), (ObjectNode) field.getValue(),
                        key + ".", known, origin, explicit);
            } else if (known.contains(key)) {
                if (!field.getValue().isNull()) {
                    target.set(key.substring(prefix.length()), field.getValue());
                    explicit.put(key, Source.FILE);
                }
            } else {
                throw new ConfigException(origin + ": unknown key '" + key + "'" + suggestion(key, known));
            }
        }
    }

    private static String suggestion(String key, Set<String> known) {
        String section = key.contains(".") ? key.substring(0, key.indexOf('.') + 1) : "";
        List<String> near = new ArrayList<>();
        for (String k : known) {
            if (!section.isEmpty() && k.startsWith(section)) {
                near.add(k);
            }
        }
        return near.isEmpty() ? " (sections: " + String.join(", ", known.stream()
                .map(k -> k.substring(0, k.indexOf('.'))).distinct().toList()) + ")"
                : " (known keys here: " + String.join(", ", near) + ")";
    }

    /** Sets a key from a string; list keys take comma-separated values. */
    private static void set(ObjectNode tree, String key, String value) {
        String[] parts = key.split("\\.");
        ObjectNode node = tree;
        for (int i = 0; i < parts.length - 1; i++) {
            node = (ObjectNode) node.get(parts[i]);
        }
        String leaf = parts[parts.length - 1];
        if (node.get(leaf) != null && node.get(leaf).isArray()) {
            var array = node.arrayNode();
            for (String item : value.split(",")) {
                if (!item.isBlank()) {
                    array.add(item.strip());
                }
            }
            node.set(leaf, array);
        } else {
            node.set(leaf, TextNode.valueOf(value));
        }
    }

    private ServerConfig bind(ObjectNode tree) {
        // the other engines' settings go to their providers as text: moved under engines.others to bind
        ObjectNode engines = (ObjectNode) tree.get("engines");
        ObjectNode others = engines.putObject("others");
        for (String engine : otherEngines) {
            ObjectNode section = others.putObject(engine);
            engines.remove(engine).properties().forEach(e -> section.put(e.getKey(), e.getValue().asText()));
        }
        try {
            return binder.treeToValue(tree, ServerConfig.class);
        } catch (MismatchedInputException e) {
            String key = e.getPath().stream().map(r -> r.getFieldName() == null ? "[" + r.getIndex() + "]"
                    : r.getFieldName()).reduce((a, b) -> a + "." + b).orElse("?");
            JsonNode value = key.startsWith(API_KEYS) ? null : at(tree, key); // never echo a key
            throw new ConfigException(key + ": invalid value " + (value == null ? "" : "'" + value.asText() + "' ")
                    + "(expected " + expected(e.getTargetType()) + ")");
        } catch (ValueInstantiationException e) {
            String section = e.getPath().isEmpty() ? "?" : e.getPath().getFirst().getFieldName();
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new ConfigException(section + ": " + cause.getMessage());
        } catch (JsonProcessingException e) {
            throw new ConfigException("invalid configuration: " + e.getOriginalMessage());
        }
    }

    private static JsonNode at(ObjectNode tree, String dotted) {
        JsonNode node = tree;
        for (String part : dotted.split("\\.")) {
            node = node == null ? null : node.get(part);
        }
        return node;
    }

    private static String expected(Class<?> type) {
        if (type == null) {
            return "another type";
        }
        if (type == int.class || type == Integer.class) {
            return "a whole number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == Duration.class) {
            return "a duration such as 500ms, 30s, 5m or 1h";
        }
        return "a " + type.getSimpleName().toLowerCase(Locale.ROOT);
    }

    private static void collect(JsonNode node, String prefix, Map<String, String> out) {
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            var field = fields.next();
            String key = prefix + field.getKey();
            if (field.getValue().isObject()) {
                collect(field.getValue(), key + ".", out);
            } else {
                out.put(key, field.getValue().isArray() ? field.getValue().toString() : field.getValue().asText());
            }
        }
    }
}
