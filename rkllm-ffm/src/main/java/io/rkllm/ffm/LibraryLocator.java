package io.rkllm.ffm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds librkllmrt.so (or, with {@link #rknn}, the RKNN runtime librknnrt.so): a configured path,
 * else {@code /usr/lib}, then {@code /usr/local/lib}, then where the system loader looks
 * (LD_LIBRARY_PATH and the multiarch directories).
 */
public final class LibraryLocator {
    public static final String LIBRARY_NAME = "librkllmrt.so";
    public static final String RKNN_LIBRARY_NAME = "librknnrt.so";

    private final Map<String, String> environment;
    private final String libraryName;

    public LibraryLocator(Map<String, String> environment) {
        this(environment, LIBRARY_NAME);
    }

    public LibraryLocator(Map<String, String> environment, String libraryName) {
        this.environment = environment;
        this.libraryName = libraryName;
    }

    /** The locator of the RKNN runtime (image encoders of vision models), searched the same way. */
    public static LibraryLocator rknn(Map<String, String> environment) {
        return new LibraryLocator(environment, RKNN_LIBRARY_NAME);
    }

    public String libraryName() {
        return libraryName;
    }

    /** The places searched, in order, when no path is configured. */
    public List<Path> searchPath() {
        List<Path> dirs = new ArrayList<>(List.of(Path.of("/usr/lib"), Path.of("/usr/local/lib")));
        String ldPath = environment.getOrDefault("LD_LIBRARY_PATH", "");
        for (String dir : ldPath.split(":")) {
            if (!dir.isBlank()) {
                dirs.add(Path.of(dir));
            }
        }
        dirs.addAll(List.of(Path.of("/usr/lib/aarch64-linux-gnu"), Path.of("/lib/aarch64-linux-gnu"),
                Path.of("/usr/lib64"), Path.of("/lib64"), Path.of("/lib")));
        return dirs.stream().map(d -> d.resolve(libraryName)).distinct().toList();
    }

    /** The library file to load, or empty when none of the search places has it. */
    public Optional<Path> locate(Optional<Path> configured) {
        if (configured.isPresent()) {
            return Optional.of(configured.get()).filter(Files::isRegularFile);
        }
        return searchPath().stream().filter(Files::isRegularFile).findFirst();
    }
}
