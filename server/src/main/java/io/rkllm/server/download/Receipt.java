package io.rkllm.server.download;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a pull verified and wrote in a model's folder ({@code .pull.json}, hidden from discovery): where each file
 * came from, its digest, and its size and time when it was written. A later pull of the same model trusts a file whose
 * size and time are still those (no need to read gigabytes again to know that nothing changed); any other file there
 * is checked by reading it.
 *
 * @param source   the repository, as {@code OWNER/REPO}
 * @param revision the commit the files were fetched at
 * @param files    by file name in the folder
 */
record Receipt(String source, String revision, Map<String, Entry> files) {
    static final String NAME = ".pull.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One verified file: its digest label ({@code sha256:...}), size and modification time in milliseconds. */
    record Entry(String digest, long size, long modified) {
    }

    Receipt {
        files = Map.copyOf(files);
    }

    /** The receipt of a folder; empty when there is none or it cannot be read (then every file is checked). */
    static Optional<Receipt> read(Path folder) {
        Path file = folder.resolve(NAME);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            JsonNode node = JSON.readTree(file.toFile());
            Map<String, Entry> files = new LinkedHashMap<>();
            node.path("files").properties().forEach(e -> files.put(e.getKey(), new Entry(
                    e.getValue().path("digest").asText(""), e.getValue().path("size").asLong(-1),
                    e.getValue().path("modified").asLong(-1))));
            return Optional.of(new Receipt(node.path("source").asText(""), node.path("revision").asText(""), files));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Whether the file is the one this receipt verified: same digest, unchanged since. */
    boolean vouchesFor(Path file, HubFile expected) {
        Entry e = files.get(file.getFileName().toString());
        if (e == null || !e.digest().equals(expected.digest().label()) || e.size() != expected.size()) {
            return false;
        }
        try {
            return Files.size(file) == e.size() && Files.getLastModifiedTime(file).toMillis() == e.modified();
        } catch (IOException ex) {
            return false;
        }
    }

    /** This receipt with the files just verified in {@code folder} recorded. */
    Receipt with(Path folder, Map<String, HubFile> verified, String repo, String commit) throws IOException {
        Map<String, Entry> all = new LinkedHashMap<>(files);
        for (var v : verified.entrySet()) {
            Path file = folder.resolve(v.getKey());
            all.put(v.getKey(), new Entry(v.getValue().digest().label(), Files.size(file),
                    Files.getLastModifiedTime(file).toMillis()));
        }
        return new Receipt(repo, commit, all);
    }

    /** Written beside the files in {@code folder}, replacing the old one in one step. */
    void write(Path folder) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("source", source);
        root.put("revision", revision);
        ObjectNode entries = root.putObject("files");
        files.forEach((name, e) -> entries.putObject(name).put("digest", e.digest()).put("size", e.size())
                .put("modified", e.modified()));
        Path tmp = folder.resolve(NAME + ".tmp");
        Files.write(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
        Files.move(tmp, folder.resolve(NAME), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static Receipt empty() {
        return new Receipt("", "", Map.of());
    }
}
