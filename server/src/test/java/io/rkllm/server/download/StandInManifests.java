package io.rkllm.server.download;

import io.rkllm.llama.text.JsonString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stand-in Hub's {@code GET /v2/OWNER/REPO/manifests/TAG}, which the Hub answers for GGUF repositories: the file a
 * tag ({@code Q4_K_M}, {@code latest}) stands for, and the vision projector beside it. To a client whose User-Agent
 * starts with {@code llama-cpp} (llama.cpp's {@code -hf OWNER/REPO:TAG} before it listed the tree itself) the Hub
 * answers {@code {"ggufFile": {"rfilename", "blobId", "size", "lfs"}, "mmprojFile": ...}}; to others (Ollama's
 * {@code pull hf.co/OWNER/REPO:TAG}) a Docker/OCI image manifest whose layers are the GGUF
 * ({@code application/vnd.ollama.image.model}) and the projector ({@code application/vnd.ollama.image.projector}),
 * their digests the files' SHA-256, fetched from {@code /v2/OWNER/REPO/blobs/sha256:HEX}.
 */
final class StandInManifests {
    /** The tag's files: the model (the first part of a split one) and the projector, if any. */
    record Choice(String model, Optional<String> mmproj) {
    }

    private static final Pattern SPLIT = Pattern.compile("-(\\d{5})-of-\\d{5}\\.gguf$", Pattern.CASE_INSENSITIVE);
    private static final List<String> DEFAULTS = List.of("Q4_K_M", "Q8_0");

    private StandInManifests() {
    }

    /**
     * The files a tag stands for, as llama.cpp chose them: a model file (no projector, no imatrix) whose name has the
     * tag followed by {@code .} or {@code -}, case aside; for {@code latest}, Q4_K_M, else Q8_0, else the first model.
     */
    static Optional<Choice> choose(Map<String, StandInHub.Blob> files, String tag) {
        List<String> models = files.keySet().stream().filter(StandInManifests::isModel)
                .filter(p -> {
                    Matcher split = SPLIT.matcher(p);
                    return !split.find() || Integer.parseInt(split.group(1)) == 1;
                })
                .toList();
        Optional<String> model = Optional.empty();
        for (String t : tag.equalsIgnoreCase("latest") ? DEFAULTS : List.of(tag)) {
            Pattern p = Pattern.compile(Pattern.quote(t) + "[.-]", Pattern.CASE_INSENSITIVE);
            model = models.stream().filter(m -> p.matcher(m).find()).findFirst();
            if (model.isPresent()) {
                break;
            }
        }
        if (model.isEmpty() && tag.equalsIgnoreCase("latest")) {
            model = models.stream().findFirst();
        }
        return model.map(m -> new Choice(m, files.keySet().stream()
                .filter(f -> f.toLowerCase(Locale.ROOT).endsWith(".gguf") && f.contains("mmproj"))
                .filter(f -> folder(f).equals(folder(m))).findFirst()));
    }

    /** The llama.cpp form. */
    static String llamaCpp(Map<String, StandInHub.Blob> files, Choice c) {
        return "{\"ggufFile\":" + file(files, c.model()) + c.mmproj().map(p -> ",\"mmprojFile\":" + file(files, p))
                .orElse("") + "}";
    }

    /** The Docker/OCI form, and the config blob it names (served by {@link #config}). */
    static String ollama(Map<String, StandInHub.Blob> files, Choice c) {
        byte[] config = config(c).getBytes(StandardCharsets.UTF_8);
        StringBuilder json = new StringBuilder("{\"schemaVersion\":2,\"mediaType\":")
                .append("\"application/vnd.docker.distribution.manifest.v2+json\",\"config\":{\"mediaType\":")
                .append("\"application/vnd.docker.container.image.v1+json\",\"digest\":\"sha256:")
                .append(StandInHub.hex("SHA-256", config)).append("\",\"size\":").append(config.length)
                .append("},\"layers\":[").append(layer(files, c.model(), "model"));
        c.mmproj().ifPresent(p -> json.append(',').append(layer(files, p, "projector")));
        return json.append("]}").toString();
    }

    /** The image config of a choice: its model's format and architecture, as the Hub writes it. */
    static String config(Choice c) {
        return "{\"model_format\":\"gguf\",\"model_file\":" + JsonString.quote(c.model()) + ",\"os\":\"linux\","
                + "\"architecture\":\"amd64\",\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[]}}";
    }

    private static String layer(Map<String, StandInHub.Blob> files, String path, String kind) {
        StandInHub.Blob b = files.get(path);
        return "{\"mediaType\":\"application/vnd.ollama.image." + kind + "\",\"digest\":\"sha256:" + b.sha256()
                + "\",\"size\":" + b.size() + "}";
    }

    private static String file(Map<String, StandInHub.Blob> files, String path) {
        StandInHub.Blob b = files.get(path);
        return "{\"rfilename\":" + JsonString.quote(path) + ",\"blobId\":\"" + b.gitSha1() + "\",\"size\":" + b.size()
                + ",\"lfs\":{\"sha256\":\"" + b.sha256() + "\",\"size\":" + b.size() + ",\"pointerSize\":134}}";
    }

    private static boolean isModel(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
        return name.endsWith(".gguf") && !name.contains("mmproj") && !name.contains("imatrix");
    }

    private static String folder(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? "" : path.substring(0, slash);
    }
}
