package io.rkllm.server.models;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the values of one {@code model.yaml}, each checked against what its key takes; problems go to a shared list. */
final class SidecarFields {
    private static final Pattern IMAGE_SIZE = Pattern.compile("\\s*(\\d{1,5})\\s*(?:[xX]\\s*(\\d{1,5})\\s*)?");
    private static final Pattern WHOLE_NUMBER = Pattern.compile("\\s*(\\d{1,9})\\s*([kK]?)\\s*");

    private final Path file;
    private final List<Problem> problems;

    SidecarFields(Path file, List<Problem> problems) {
        this.file = file;
        this.problems = problems;
    }

    /** The map's entries under normalised keys; unknown keys are warned about (with a suggestion). */
    Map<String, JsonNode> keys(JsonNode map, String prefix, List<String> known) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : map.properties()) {
            String key = e.getKey().strip().toLowerCase(Locale.ROOT).replace('-', '_');
            if (!known.contains(key)) {
                String hint = closest(key, known).map(k -> "; did you mean '" + prefix + k + "'?").orElse("");
                problems.add(Problem.warning(file, prefix + e.getKey(), "unknown key, ignored" + hint));
            } else if (out.containsKey(key)) {
                problems.add(Problem.error(file, prefix + e.getKey(), "is set twice"));
            } else {
                out.put(key, e.getValue());
            }
        }
        return out;
    }

    OptionalDouble decimal(String key, JsonNode v, double min, double max) {
        if (v == null || v.isNull()) {
            return OptionalDouble.empty();
        }
        double d;
        if (v.isNumber()) {
            d = v.doubleValue();
        } else if (v.isTextual()) {
            try {
                d = Double.parseDouble(v.textValue().strip());
            } catch (NumberFormatException e) {
                return fail(key, "expected a number, got " + describe(v));
            }
        } else {
            return fail(key, "expected a number, got " + describe(v));
        }
        if (!(d >= min && d <= max)) {
            return fail(key, "must be between " + number(min) + " and " + number(max) + ", got " + v.asText());
        }
        return OptionalDouble.of(d);
    }

    private OptionalDouble fail(String key, String message) {
        problems.add(Problem.error(file, key, message));
        return OptionalDouble.empty();
    }

    OptionalInt integer(String key, JsonNode v, int min, int max, boolean allowK) {
        if (v == null || v.isNull()) {
            return OptionalInt.empty();
        }
        long value;
        String expected = allowK ? "a whole number (or 4k, 8k, ...)" : "a whole number";
        if (v.isIntegralNumber()) {
            value = v.canConvertToLong() ? v.longValue() : Long.MAX_VALUE;
        } else if (v.isFloatingPointNumber() && v.doubleValue() == Math.rint(v.doubleValue())
                && Math.abs(v.doubleValue()) < 1e15) {
            value = (long) v.doubleValue();
        } else if (v.isTextual()) {
            Matcher m = WHOLE_NUMBER.matcher(v.textValue());
            if (!m.matches() || (!allowK && !m.group(2).isEmpty())) {
                problems.add(Problem.error(file, key, "expected " + expected + ", got " + describe(v)));
                return OptionalInt.empty();
            }
            value = Long.parseLong(m.group(1)) * (m.group(2).isEmpty() ? 1 : 1024);
        } else {
            problems.add(Problem.error(file, key, "expected " + expected + ", got " + describe(v)));
            return OptionalInt.empty();
        }
        if (value < min || value > max) {
            problems.add(Problem.error(file, key, "must be between " + min + " and " + max + ", got "
                    + v.asText()));
            return OptionalInt.empty();
        }
        return OptionalInt.of((int) value);
    }

    Optional<Boolean> bool(String key, JsonNode v) {
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        if (v.isBoolean()) {
            return Optional.of(v.booleanValue());
        }
        if (v.isTextual()) {
            switch (v.textValue().strip().toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on" -> {
                    return Optional.of(true);
                }
                case "false", "no", "off" -> {
                    return Optional.of(false);
                }
                default -> {
                }
            }
        }
        problems.add(Problem.error(file, key, "expected true or false, got " + describe(v)));
        return Optional.empty();
    }

    /** A string or a list of strings (a model's stop strings), each non-empty, at most 16 of 256 characters. */
    List<String> strings(String key, JsonNode v) {
        if (v == null || v.isNull()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : v.isArray() ? v : List.of(v)) {
            if (!item.isValueNode() || item.isNull() || item.asText().isEmpty() || item.asText().length() > 256) {
                problems.add(Problem.error(file, key, "expected a string or a list of strings (each 1 to 256"
                        + " characters), got " + describe(item)));
                return List.of();
            }
            out.add(item.asText());
        }
        if (out.size() > 16) {
            problems.add(Problem.error(file, key, "at most 16 stop strings, got " + out.size()));
            return List.of();
        }
        return out;
    }

    Optional<String> text(String key, JsonNode v) {
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        if (v.isValueNode()) {
            return Optional.of(v.asText());
        }
        problems.add(Problem.error(file, key, "expected text, got " + describe(v)));
        return Optional.empty();
    }

    SamplingDefaults sampling(String prefix, Map<String, JsonNode> keys) {
        return new SamplingDefaults(
                decimal(prefix + "temperature", keys.get("temperature"), 0.0, 2.0),
                decimal(prefix + "top_p", keys.get("top_p"), 0.0, 1.0),
                integer(prefix + "top_k", keys.get("top_k"), 0, 100_000, false),
                decimal(prefix + "repeat_penalty", keys.get("repeat_penalty"), 0.01, 10.0),
                decimal(prefix + "frequency_penalty", keys.get("frequency_penalty"), -2.0, 2.0),
                decimal(prefix + "presence_penalty", keys.get("presence_penalty"), -2.0, 2.0),
                integer(prefix + "max_tokens", keys.get("max_tokens"), 1, SidecarKeys.MAX_CONTEXT_LENGTH, true));
    }

    Optional<ChatTemplate> chatTemplate(JsonNode v) {
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        if (!v.isObject()) {
            problems.add(Problem.error(file, "chat_template",
                    "expected a map with system_prompt, prompt_prefix and prompt_postfix, got " + describe(v)));
            return Optional.empty();
        }
        Map<String, JsonNode> t = keys(v, "chat_template.", SidecarKeys.TEMPLATE_KEYS);
        Optional<String> system = text("chat_template.system_prompt", t.get("system_prompt"));
        Optional<String> prefix = text("chat_template.prompt_prefix", t.get("prompt_prefix"));
        Optional<String> postfix = text("chat_template.prompt_postfix", t.get("prompt_postfix"));
        if (system.isEmpty() && prefix.isEmpty() && postfix.isEmpty()) {
            problems.add(Problem.warning(file, "chat_template",
                    "sets none of system_prompt, prompt_prefix, prompt_postfix; ignored"));
            return Optional.empty();
        }
        return Optional.of(new ChatTemplate(system.orElse(""), prefix.orElse(""), postfix.orElse("")));
    }

    Sidecar.Vision vision(JsonNode v) {
        if (v == null || v.isNull()) {
            return Sidecar.Vision.NONE;
        }
        if (!v.isObject()) {
            problems.add(Problem.error(file, "vision", "expected a map such as {encoder: x.rknn, max_images: 1},"
                    + " got " + describe(v)));
            return Sidecar.Vision.NONE;
        }
        Map<String, JsonNode> k = keys(v, "vision.", SidecarKeys.VISION_KEYS);
        OptionalInt width = OptionalInt.empty();
        OptionalInt height = OptionalInt.empty();
        JsonNode size = k.get("image_size");
        if (size != null && !size.isNull()) {
            Matcher m = IMAGE_SIZE.matcher(size.asText());
            if (!size.isValueNode() || !m.matches()) {
                problems.add(Problem.error(file, "vision.image_size", "expected a size such as 448 or 448x448,"
                        + " got " + describe(size)));
            } else {
                int w = Integer.parseInt(m.group(1));
                int h = m.group(2) == null ? w : Integer.parseInt(m.group(2));
                if (w < 16 || h < 16 || w > 4096 || h > 4096) {
                    problems.add(Problem.error(file, "vision.image_size", "must be between 16 and 4096 a side,"
                            + " got " + size.asText()));
                } else {
                    width = OptionalInt.of(w);
                    height = OptionalInt.of(h);
                }
            }
        }
        return new Sidecar.Vision(text("vision.encoder", k.get("encoder")).filter(s -> !s.isBlank()),
                bool("vision.enabled", k.get("enabled")),
                text("vision.image_start", k.get("image_start")),
                text("vision.image_end", k.get("image_end")),
                text("vision.image_content", k.get("image_content")),
                width, height,
                integer("vision.image_tokens", k.get("image_tokens"), 1, 65_536, false),
                integer("vision.max_images", k.get("max_images"), 1, 64, false),
                integer("vision.base_domain_id", k.get("base_domain_id"), 0, 15, false));
    }

    /** The {@code embedding:} map (how an embedding model's vectors are made). */
    EmbeddingOverrides embedding(JsonNode v) {
        if (v == null || v.isNull()) {
            return EmbeddingOverrides.none();
        }
        if (!v.isObject()) {
            problems.add(Problem.error(file, "embedding",
                    "expected a map such as {pooling: last, framing: raw}, got " + describe(v)));
            return EmbeddingOverrides.none();
        }
        Map<String, JsonNode> e = keys(v, "embedding.", SidecarKeys.EMBEDDING_KEYS);
        Optional<EmbeddingSettings.Pooling> pooling = text("embedding.pooling", e.get("pooling")).flatMap(p -> {
            Optional<EmbeddingSettings.Pooling> parsed = EmbeddingSettings.Pooling.parse(p);
            if (parsed.isEmpty()) {
                problems.add(Problem.error(file, "embedding.pooling", "expected last, mean or cls, got \"" + p
                        + "\""));
            }
            return parsed;
        });
        Optional<EmbeddingSettings.Framing> framing = text("embedding.framing", e.get("framing")).flatMap(p -> {
            Optional<EmbeddingSettings.Framing> parsed = EmbeddingSettings.Framing.parse(p);
            if (parsed.isEmpty()) {
                problems.add(Problem.error(file, "embedding.framing", "expected raw or template, got \"" + p
                        + "\""));
            }
            return parsed;
        });
        return new EmbeddingOverrides(pooling, bool("embedding.normalize", e.get("normalize")), framing,
                text("embedding.end_of_text", e.get("end_of_text")),
                text("embedding.query_prefix", e.get("query_prefix")),
                text("embedding.document_prefix", e.get("document_prefix")),
                integer("embedding.dimensions", e.get("dimensions"), 1, SidecarKeys.MAX_DIMENSIONS, false),
                bool("embedding.matryoshka", e.get("matryoshka")),
                integer("embedding.max_input_tokens", e.get("max_input_tokens"), 1, SidecarKeys.MAX_CONTEXT_LENGTH, true));
    }

    List<String> aliases(JsonNode v) {
        if (v == null || v.isNull()) {
            return List.of();
        }
        List<JsonNode> items = new ArrayList<>();
        if (v.isArray()) {
            v.forEach(items::add);
        } else if (v.isValueNode()) {
            items.add(v);
        } else {
            problems.add(Problem.error(file, "aliases", "expected a list of names, got " + describe(v)));
            return List.of();
        }
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < items.size(); i++) {
            JsonNode item = items.get(i);
            String key = "aliases[" + i + "]";
            if (item.isNull()) {
                continue;
            }
            if (!item.isValueNode()) {
                problems.add(Problem.error(file, key, "expected a name, got " + describe(item)));
                continue;
            }
            String raw = item.asText();
            String alias = ModelIds.sanitize(raw);
            if (alias.isEmpty()) {
                problems.add(Problem.warning(file, key, "\"" + raw + "\" has no usable characters; ignored"));
                continue;
            }
            if (!alias.equals(raw.strip().toLowerCase(Locale.ROOT))) {
                problems.add(Problem.warning(file, key, "\"" + raw + "\" is used as \"" + alias
                        + "\" (ids and aliases use only a-z 0-9 . _ : -)"));
            }
            out.add(alias);
        }
        return List.copyOf(out);
    }

    static String describe(JsonNode v) {
        if (v.isTextual()) {
            return "\"" + v.textValue() + "\"";
        }
        if (v.isObject()) {
            return "a map";
        }
        if (v.isArray()) {
            return "a list";
        }
        return v.toString();
    }

    private static String number(double d) {
        return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }

    /** The known key within edit distance 2 of {@code key}, if exactly one is closest. */
    static Optional<String> closest(String key, List<String> known) {
        String best = null;
        int bestDistance = 3;
        Set<String> ties = new HashSet<>();
        for (String k : known) {
            int d = distance(key, k);
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
                ties.clear();
            } else if (d == bestDistance) {
                ties.add(k);
            }
        }
        return best != null && ties.isEmpty() ? Optional.of(best) : Optional.empty();
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
