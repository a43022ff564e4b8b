package io.rkllm.llama;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Chooses the libllama to load, in this order: a configured path (a file, or a directory holding libllama.so);
 * a user-built library installed under {@code /usr/local/lib} (where llama.cpp's {@code cmake --install} puts
 * it); Debian's libllama0; a libllama.so on {@code LD_LIBRARY_PATH}; and, when none of these exists, the one
 * bundled in the jar ({@link BundledLlama}: llama.cpp v0.5.0 from npm's prebuilt packages, Linux x86_64 and
 * aarch64), extracted with its ggml libraries to a cache directory once and never half-written.
 */
public final class LlamaLibraryLocator {
    private static final List<String> NAMES = List.of("libllama.so", "libllama.so.0");

    private final Map<String, String> environment;
    private final String arch;
    private final Path cacheDir;
    private final List<Path> userDirs;
    private final List<Path> debianDirs;

    /**
     * @param cacheDir where the bundled library is extracted (a directory per content hash under it)
     */
    public LlamaLibraryLocator(Map<String, String> environment, String osArch, Path cacheDir) {
        this(environment, osArch, cacheDir, List.of(Path.of("/usr/local/lib"), Path.of("/usr/local/lib64")),
                List.of(Path.of("/usr/lib/" + multiarch(osArch)), Path.of("/usr/lib")));
    }

    LlamaLibraryLocator(Map<String, String> environment, String osArch, Path cacheDir, List<Path> userDirs,
                        List<Path> debianDirs) {
        this.environment = environment;
        this.arch = normalise(osArch);
        this.cacheDir = cacheDir;
        this.userDirs = userDirs;
        this.debianDirs = debianDirs;
    }

    /** The default locator of this process: its environment, architecture and a cache under java.io.tmpdir. */
    public static LlamaLibraryLocator system() {
        return new LlamaLibraryLocator(System.getenv(), System.getProperty("os.arch"),
                Path.of(System.getProperty("java.io.tmpdir"), "rkllm-server-llama-" + System.getProperty("user.name")));
    }

    /**
     * The library to load. A configured path wins and must exist; otherwise the first installed library, else the
     * bundled one.
     *
     * @throws LlamaException when a configured path has no library, or nothing was found at all
     */
    public LlamaLibrary locate(Optional<Path> configured) {
        if (configured.isPresent()) {
            Path path = configured.get();
            if (Files.isDirectory(path)) {
                for (String name : NAMES) {
                    if (Files.isRegularFile(path.resolve(name))) {
                        return new LlamaLibrary(path.resolve(name), LlamaLibrary.Origin.CONFIGURED,
                                "configured directory " + path);
                    }
                }
                throw new LlamaException("the configured llama.cpp library directory " + path + " has no "
                        + String.join(" or ", NAMES));
            }
            if (!Files.isRegularFile(path)) {
                throw new LlamaException("the configured llama.cpp library " + path + " does not exist");
            }
            return new LlamaLibrary(path, LlamaLibrary.Origin.CONFIGURED, "configured path");
        }
        return installed().or(this::bundled).orElseThrow(() -> new LlamaException(
                "no llama.cpp library found: none installed (" + String.join(", ", searched())
                        + ") and none bundled for " + arch + " (the jar carries Linux x86_64 and aarch64)"));
    }

    /** The first installed library of the search places, if any. */
    public Optional<LlamaLibrary> installed() {
        for (Path dir : userDirs) {
            Optional<Path> found = find(dir);
            if (found.isPresent()) {
                return Optional.of(new LlamaLibrary(found.get(), LlamaLibrary.Origin.USER_BUILT,
                        "installed by hand under " + dir));
            }
        }
        for (Path dir : debianDirs) {
            Optional<Path> found = find(dir);
            if (found.isPresent()) {
                return Optional.of(new LlamaLibrary(found.get(), LlamaLibrary.Origin.DEBIAN,
                        "installed by the system's package (Debian's libllama0) in " + dir));
            }
        }
        for (String dir : environment.getOrDefault("LD_LIBRARY_PATH", "").split(":")) {
            if (!dir.isBlank()) {
                Optional<Path> found = find(Path.of(dir));
                if (found.isPresent()) {
                    return Optional.of(new LlamaLibrary(found.get(), LlamaLibrary.Origin.LOADER_PATH,
                            "on LD_LIBRARY_PATH in " + dir));
                }
            }
        }
        return Optional.empty();
    }

    /** The places searched for an installed library, in order. */
    public List<String> searched() {
        List<String> places = new ArrayList<>();
        userDirs.forEach(d -> places.add(d.toString()));
        debianDirs.forEach(d -> places.add(d.toString()));
        places.add("LD_LIBRARY_PATH");
        return places;
    }

    private static Optional<Path> find(Path dir) {
        for (String name : NAMES) {
            Path candidate = dir.resolve(name);
            if (Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The bundled library for this architecture, extracted (once) to the cache; empty when none is bundled. */
    public Optional<LlamaLibrary> bundled() {
        return BundledLlama.forArch(arch).map(bundle -> new LlamaLibrary(bundle.extract(cacheDir),
                LlamaLibrary.Origin.BUNDLED, bundle.describe() + ", no library installed"));
    }

    static String normalise(String osArch) {
        return switch (osArch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> osArch;
        };
    }

    private static String multiarch(String osArch) {
        return normalise(osArch) + "-linux-gnu";
    }
}
