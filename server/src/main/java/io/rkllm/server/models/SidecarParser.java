package io.rkllm.server.models;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Reads and validates {@code model.yaml} sidecars. Unknown keys are warnings; a value of the wrong type or
 * out of range is an error naming the file and the key. All problems of a file are reported, not just the
 * first. Keys are matched case-insensitively and {@code -} counts as {@code _}; a {@code null} value
 * ({@code key:} with nothing after it) means "not set".
 */
final class SidecarParser {

    /** A sidecar is a few lines; anything bigger is a mistake (and is not read). */
    static final long MAX_BYTES = 256 * 1024;

    private final ObjectMapper yaml = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .build();
    private final ObjectMapper json = JsonMapper.builder().build();

    /** The outcome for one file: the sidecar when it has no errors, and every problem found. */
    record Parsed(Optional<Sidecar> sidecar, List<Problem> problems) {
        Parsed {
            problems = List.copyOf(problems);
        }

        List<Problem> errors() {
            return problems.stream().filter(Problem::isError).toList();
        }

        List<Problem> warnings() {
            return problems.stream().filter(p -> !p.isError()).toList();
        }
    }

    /** Reads one sidecar. An empty file is a valid sidecar that sets nothing. */
    Parsed parse(Path file) {
        List<Problem> problems = new ArrayList<>();
        Optional<JsonNode> read = read(file, yaml, "YAML", problems);
        if (read.isEmpty()) {
            return new Parsed(Optional.empty(), problems);
        }
        JsonNode root = read.get();
        if (root.isMissingNode() || root.isNull()) {
            return new Parsed(Optional.of(Sidecar.none(file)), problems);
        }
        if (!root.isObject()) {
            problems.add(Problem.error(file, "expected a map of keys (name:, context_length:, ...), got "
                    + SidecarFields.describe(root)));
            return new Parsed(Optional.empty(), problems);
        }
        SidecarFields f = new SidecarFields(file, problems);
        Map<String, JsonNode> top = f.keys(root, "", SidecarKeys.TOP_KEYS);

        Optional<String> name = f.text("name", top.get("name")).filter(s -> {
            if (s.isBlank()) {
                problems.add(Problem.warning(file, "name", "is empty; ignored"));
                return false;
            }
            return true;
        }).map(String::strip);
        Optional<String> family = f.text("family", top.get("family")).flatMap(s -> {
            String id = ModelIds.sanitize(s);
            if (id.isEmpty()) {
                problems.add(Problem.error(file, "family", "expected a family name such as qwen3, got \"" + s + "\""));
                return Optional.empty();
            }
            return Optional.of(id);
        });
        OptionalInt contextLength = f.integer("context_length", top.get("context_length"), 1, SidecarKeys.MAX_CONTEXT_LENGTH,
                true);

        Optional<Boolean> thinking = Optional.empty();
        Optional<Boolean> tools = Optional.empty();
        JsonNode caps = top.get("capabilities");
        if (caps != null && !caps.isNull()) {
            if (!caps.isObject()) {
                problems.add(Problem.error(file, "capabilities",
                        "expected a map such as {thinking: true, tools: false}, got " + SidecarFields.describe(caps)));
            } else {
                Map<String, JsonNode> c = f.keys(caps, "capabilities.", SidecarKeys.CAPABILITY_KEYS);
                thinking = f.bool("capabilities.thinking", c.get("thinking"));
                tools = f.bool("capabilities.tools", c.get("tools"));
            }
        }
        Optional<Boolean> startsOpen = f.bool("thinking_starts_open", top.get("thinking_starts_open"));

        SamplingDefaults sampling = f.sampling("", top).withStop(f.strings("stop", top.get("stop")));
        SamplingDefaults thinkingSampling = SamplingDefaults.none();
        JsonNode ts = top.get("thinking_sampling");
        if (ts != null && !ts.isNull()) {
            if (!ts.isObject()) {
                problems.add(Problem.error(file, "thinking_sampling",
                        "expected a map of sampling keys (temperature:, top_p:, ...), got " + SidecarFields.describe(ts)));
            } else {
                thinkingSampling = f.sampling("thinking_sampling.", f.keys(ts, "thinking_sampling.", SidecarKeys.SAMPLING_KEYS));
            }
        }

        Optional<ChatTemplate> template = f.chatTemplate(top.get("chat_template"));
        Optional<String> systemPrompt = f.text("default_system_prompt", top.get("default_system_prompt"))
                .filter(s -> !s.isBlank());
        List<String> aliases = f.aliases(top.get("aliases"));
        OptionalInt memoryMb = f.integer("memory_mb", top.get("memory_mb"), 1, SidecarKeys.MAX_MEMORY_MB, false);
        Sidecar.Vision vision = f.vision(top.get("vision"));
        Optional<ModelKind> kind = f.text("kind", top.get("kind")).flatMap(k -> {
            Optional<ModelKind> parsed = ModelKind.parse(k);
            if (parsed.isEmpty()) {
                problems.add(Problem.error(file, "kind", "expected chat or embedding, got \"" + k + "\""));
            }
            return parsed;
        });
        EmbeddingOverrides embedding = f.embedding(top.get("embedding"));
        // which dialects exist is the pipeline's to say: a name it does not know is a warning when the model is used
        Optional<String> dialect = f.text("dialect", top.get("dialect")).map(String::strip).filter(d -> !d.isEmpty());

        if (problems.stream().anyMatch(Problem::isError)) {
            return new Parsed(Optional.empty(), problems);
        }
        return new Parsed(Optional.of(new Sidecar(file, name, family, aliases, kind, contextLength, memoryMb,
                new Sidecar.Chat(thinking, tools, startsOpen, sampling, thinkingSampling, template, systemPrompt,
                        dialect), vision, embedding)), problems);
    }

    /**
     * The {@code context_length} of a {@code model_config.json} as the leading Python server reads it (for
     * users who migrate). Other keys are ignored; any problem is only a warning.
     */
    OptionalInt legacyContextLength(Path file, List<Problem> out) {
        List<Problem> problems = new ArrayList<>();
        OptionalInt result = OptionalInt.empty();
        Optional<JsonNode> root = read(file, json, "JSON", problems);
        if (root.isPresent() && root.get().isObject()) {
            result = new SidecarFields(file, problems).integer("context_length", root.get().get("context_length"), 1,
                    SidecarKeys.MAX_CONTEXT_LENGTH, false);
        }
        for (Problem p : problems) {
            out.add(new Problem(Problem.Severity.WARNING, p.path(), p.key(), p.message() + " (file ignored)"));
        }
        return problems.isEmpty() ? result : OptionalInt.empty();
    }

    private static Optional<JsonNode> read(Path file, ObjectMapper mapper, String format, List<Problem> problems) {
        try {
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                problems.add(Problem.error(file, "is " + size + " bytes; a sidecar is a few lines (limit "
                        + MAX_BYTES + "), not read"));
                return Optional.empty();
            }
            return Optional.of(mapper.readTree(Files.readAllBytes(file)));
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            String where = at == null || at.getLineNr() < 1 ? "" : " (line " + at.getLineNr() + ", column "
                    + at.getColumnNr() + ")";
            problems.add(Problem.error(file, "is not valid " + format + where + ": " + e.getOriginalMessage()));
            return Optional.empty();
        } catch (AccessDeniedException e) {
            problems.add(Problem.error(file, "cannot be read (permission denied)"));
            return Optional.empty();
        } catch (IOException e) {
            problems.add(Problem.error(file, "cannot be read: " + e));
            return Optional.empty();
        }
    }
}
