package io.rkllm.server.download;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What a pull from an Ollama registry writes, from the model's manifest (its layers by media type): the GGUF of its
 * {@code model} layer as the model, its {@code projector} kept beside it for later (under a name discovery does not
 * read as a model), its {@code license} as a file; its {@code params} and {@code system} layers become its
 * {@code model.yaml} (what Ollama applies as the model's defaults: the context, sampling, stop strings, the system
 * prompt), with the name it was pulled by as an alias. A model whose weights are not one GGUF (Ollama's own engine's
 * tensor layers) is refused before anything is downloaded.
 */
final class RegistryPlanner {
    static final String MODEL = "application/vnd.ollama.image.model";
    static final String PROJECTOR = "application/vnd.ollama.image.projector";
    static final String ADAPTER = "application/vnd.ollama.image.adapter";
    static final String PARAMS = "application/vnd.ollama.image.params";
    static final String SYSTEM = "application/vnd.ollama.image.system";
    static final String LICENSE = "application/vnd.ollama.image.license";
    static final String TEMPLATE = "application/vnd.ollama.image.template";
    static final String TENSOR = "application/vnd.ollama.image.tensor";
    /** The projector's file: kept, and not a {@code .gguf} discovery would read as a second model. */
    static final String PROJECTOR_FILE = "projector.mmproj";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Ollama's parameters and the {@code model.yaml} keys they are. */
    private static final Map<String, String> SAMPLING = Map.of("temperature", "temperature", "top_p", "top_p",
            "top_k", "top_k", "repeat_penalty", "repeat_penalty", "presence_penalty", "presence_penalty",
            "frequency_penalty", "frequency_penalty");

    private RegistryPlanner() {
    }

    /**
     * The model layer, or why the model cannot be served here.
     *
     * @throws PullException {@link PullException.Kind#INVALID} for a model only Ollama's own engine runs
     */
    static RegistryClient.Layer modelLayer(OllamaName name, RegistryClient.Manifest manifest) throws PullException {
        if (manifest.layer(TENSOR).isPresent()) {
            throw new PullException(PullException.Kind.INVALID, name.shortest() + " is a model only Ollama's own"
                    + " engine runs (its weights are tensor layers, not a GGUF file): nothing was downloaded");
        }
        List<RegistryClient.Layer> models = manifest.layers().stream().filter(l -> l.mediaType().equals(MODEL))
                .toList();
        if (models.size() != 1) {
            throw new PullException(PullException.Kind.INVALID, name.shortest() + " has " + (models.isEmpty()
                    ? "no model layer" : models.size() + " model layers") + " (" + types(manifest) + "): this server"
                    + " runs one GGUF file per model; nothing was downloaded");
        }
        return models.getFirst();
    }

    /**
     * The plan: the model file, the projector and the licence to fetch, the sidecar made of the parameters and the
     * system prompt (present or not), the alias the pulled name is.
     */
    static PullPlan plan(OllamaName name, RegistryClient.Manifest manifest, Optional<byte[]> params,
                         Optional<byte[]> system) throws PullException {
        RegistryClient.Layer model = modelLayer(name, manifest);
        String folder = name.folder();
        HubFile primary = file(folder + ".gguf", model);
        List<HubFile> files = new ArrayList<>(List.of(primary));
        manifest.layer(PROJECTOR).ifPresent(p -> files.add(file(PROJECTOR_FILE, p)));
        manifest.layer(LICENSE).ifPresent(l -> files.add(file("LICENSE", l)));
        return new PullPlan(PullPlan.Format.GGUF, folder, primary, files, Optional.of(sidecar(name,
                "pull from " + name.full() + " (its params and system layers, which Ollama applies as the model's"
                        + " defaults)", params, system)));
    }

    private static HubFile file(String name, RegistryClient.Layer layer) {
        return new HubFile(name, layer.size(), Digest.sha256(layer.hex()));
    }

    /**
     * The model's {@code model.yaml}: its name, the alias it was pulled (or created) by, its parameters, its system
     * prompt; its first line says what wrote it (a pull writes it again on an update while that line is there).
     */
    static String sidecar(OllamaName name, String writtenBy, Optional<byte[]> params, Optional<byte[]> system)
            throws PullException {
        StringBuilder yaml = new StringBuilder("# Written by rkllm-server's " + writtenBy + "; yours to edit.\n");
        yaml.append("name: ").append(quote(name.shortest())).append('\n');
        yaml.append("aliases: [").append(quote(name.shortest().toLowerCase(Locale.ROOT))).append("]\n");
        if (params.isPresent()) {
            JsonNode p;
            try {
                p = JSON.readTree(params.get());
            } catch (IOException e) {
                p = null;
            }
            if (p == null || !p.isObject()) {
                throw new PullException(PullException.Kind.BAD_GATEWAY, "the parameters of " + name.shortest()
                        + " are not a JSON object");
            }
            JsonNode ctx = p.path("num_ctx");
            if (ctx.canConvertToInt() && ctx.asInt() >= 512) {
                yaml.append("context_length: ").append(ctx.asInt()).append('\n');
            }
            for (var e : SAMPLING.entrySet()) {
                JsonNode v = p.path(e.getKey());
                if (v.isNumber()) {
                    yaml.append(e.getValue()).append(": ").append(v.asText()).append('\n');
                }
            }
            JsonNode predict = p.path("num_predict");
            if (predict.canConvertToInt() && predict.asInt() > 0) {
                yaml.append("max_tokens: ").append(predict.asInt()).append('\n');
            }
            JsonNode stop = p.path("stop");
            List<String> stops = new ArrayList<>();
            for (JsonNode s : stop.isArray() ? stop : List.of(stop)) {
                if (s.isTextual() && !s.asText().isEmpty() && stops.size() < 16) {
                    stops.add(quote(s.asText()));
                }
            }
            if (!stops.isEmpty()) {
                yaml.append("stop: [").append(String.join(", ", stops)).append("]\n");
            }
        }
        system.map(b -> new String(b, StandardCharsets.UTF_8)).filter(s -> !s.isBlank())
                .ifPresent(s -> yaml.append("default_system_prompt: ").append(quote(s)).append('\n'));
        return yaml.toString();
    }

    /** A YAML double-quoted scalar: the same as a JSON string. */
    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a string always serializes
        }
    }

    private static String types(RegistryClient.Manifest manifest) {
        return String.join(", ", manifest.layers().stream().map(RegistryClient.Layer::mediaType)
                .map(t -> t.replace("application/vnd.ollama.image.", "")).distinct().toList());
    }
}
