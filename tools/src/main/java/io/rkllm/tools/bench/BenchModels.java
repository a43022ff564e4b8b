package io.rkllm.tools.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The temporary models directory of a bench that serves a GGUF model through llama.cpp alone ({@code bench llama},
 * the conversation benches with {@code --gguf}): a given file linked into it, the configuration that points at it,
 * its removal afterwards.
 */
final class BenchModels {
    private BenchModels() {
    }

    /** Links {@code file} into a folder of its own under {@code models}, named by its stem; returns that name. */
    static String link(Path models, Path file) throws IOException {
        String name = file.getFileName().toString();
        String id = name.substring(0, name.length() - ".gguf".length());
        Files.createSymbolicLink(Files.createDirectories(models.resolve(id)).resolve(name), file);
        return id;
    }

    /** The flags given, with the bench's models directory, the real engines and a loopback server on any port. */
    static Map<String, String> flags(Map<String, String> given, Path models) {
        Map<String, String> flags = new LinkedHashMap<>(given);
        flags.put("models.dir", models.toString());
        flags.put("runtime.simulate", "false");
        flags.putIfAbsent("server.port", "0");
        flags.putIfAbsent("server.host", "127.0.0.1");
        flags.putIfAbsent("logging.access_log", "false");
        return flags;
    }

    /** Removes the temporary directory (the link to a given file, never the file itself). */
    static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
