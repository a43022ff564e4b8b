package io.rkllm.server.http.ollama;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.download.OllamaName;
import io.rkllm.server.download.PullOrigin;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelHeader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a model looks to Ollama clients: {@code id:latest} names, a digest, and {@code details} derived from
 * what the catalog knows (the file's format as its engine names it; family, parameter size and quantization from the
 * file's header when its engine reads one, else from the file's name, as Rockchip's converted models are named, e.g.
 * {@code qwen3-1.7b_w8a8_rk3588.rkllm}).
 */
final class OllamaModels {
    private static final Pattern PARAMETERS = Pattern.compile("(?<![a-z0-9.])(\\d+(?:\\.\\d+)?)([bm])(?![a-z0-9])");
    private static final Pattern QUANTIZATION = Pattern.compile("(?<![a-z0-9])(w\\d+a\\d+(?:_g\\d+)?|fp16|f16|int8|int4)"
            + "(?![a-z0-9])");

    private OllamaModels() {
    }

    /**
     * The name Ollama clients see and send back: the name a model pulled from a registry was pulled by
     * ({@code qwen3:4b}, which Open WebUI's "update all" pulls again), else the id with the {@code :latest} tag.
     */
    static String name(ModelDescriptor model) {
        Optional<String> pulled = PullOrigin.of(model.file().getParent()).flatMap(PullOrigin::registryName)
                .map(OllamaName::shortest).filter(n -> !n.contains("/") && model.aliases().contains(n.toLowerCase(Locale.ROOT)));
        if (pulled.isPresent()) {
            return pulled.get();
        }
        return model.id().contains(":") ? model.id() : model.id() + ":latest";
    }

    /**
     * A stable 64-hex digest standing for the model file: SHA-256 of its id, size and modification time
     * (hashing gigabytes of weights per listing is not worth it). It changes when the file does.
     */
    static String digest(ModelDescriptor model) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((model.id() + "\n" + model.sizeBytes() + "\n" + model.modified().toEpochMilli())
                    .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What Ollama's clients read in {@code capabilities} ({@code /api/tags}, {@code /api/show}), in Ollama's order:
     * a chat model has {@code completion}, then {@code tools}, {@code vision} and {@code thinking} as it can; an
     * embedding model has only {@code embedding}. The same facts as {@code /v1/models}' capabilities object.
     */
    static List<String> capabilities(ModelDescriptor model) {
        if (model.ranks()) {
            return List.of("rerank");
        }
        if (model.isEmbedding()) {
            return List.of("embedding");
        }
        List<String> caps = new ArrayList<>(List.of("completion"));
        if (model.capabilities().tools()) {
            caps.add("tools");
        }
        if (model.seesImages()) {
            caps.add("vision");
        }
        if (model.capabilities().thinking()) {
            caps.add("thinking");
        }
        return caps;
    }

    static ObjectNode details(ObjectMapper mapper, ModelDescriptor model) {
        String file = model.file().getFileName().toString().toLowerCase(Locale.ROOT);
        String names = model.id().toLowerCase(Locale.ROOT) + " " + file;
        ObjectNode d = mapper.createObjectNode();
        d.put("parent_model", "");
        d.put("format", model.facts().format());
        if (model.facts().header().isPresent()) {
            // as Ollama itself describes a GGUF model: from its header, the architecture as the family
            ModelHeader header = model.facts().header().get();
            d.put("family", header.architecture());
            d.putArray("families").add(header.architecture());
            d.put("parameter_size", header.parameterSize());
            d.put("quantization_level", header.quantisation());
            return d;
        }
        d.put("family", model.family());
        d.putArray("families").add(model.family());
        Matcher p = PARAMETERS.matcher(names);
        d.put("parameter_size", p.find() ? p.group(1) + p.group(2).toUpperCase(Locale.ROOT) : "");
        Matcher q = QUANTIZATION.matcher(names);
        d.put("quantization_level", q.find() ? q.group(1).toUpperCase(Locale.ROOT) : "");
        return d;
    }
}
