package io.rkllm.llama;

import java.util.List;

/**
 * A loaded libllama for {@code doctor} and the start banner: which file and why, which generation, its
 * {@code llama_print_system_info} line and the ggml devices (backends) it found.
 */
public record LibraryInfo(LlamaLibrary library, LibraryIdentity identity, String systemInfo, List<String> devices) {

    /**
     * The CPU backend variant ggml picked for this CPU among a build's {@code libggml-cpu-VARIANT.so} (the bundled
     * build's {@code zen4}, {@code haswell}, {@code armv8.2_2}...), as the process has it mapped; empty for a build
     * with one CPU backend linked in.
     */
    public java.util.Optional<String> cpuVariant() {
        return cpuVariant(java.nio.file.Path.of("/proc/self/maps"));
    }

    static java.util.Optional<String> cpuVariant(java.nio.file.Path maps) {
        try (var lines = java.nio.file.Files.lines(maps)) {
            return lines.map(l -> l.substring(l.lastIndexOf('/') + 1))
                    .filter(f -> f.startsWith("libggml-cpu-") && f.endsWith(".so"))
                    .map(f -> f.substring("libggml-cpu-".length(), f.length() - 3)).findFirst();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return java.util.Optional.empty();
        }
    }
}
