package io.rkllm.ffm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Locates the simulated runtime libraries that the build compiled for this machine and bundled in
 * the jar. They have the exact C ABI of librkllmrt.so and librknnrt.so, so they are opened like the
 * real ones: nothing else in the binding or the server knows they are simulated.
 */
public final class SimulatedRuntime {
    private SimulatedRuntime() {
    }

    /** The resource path of the bundled library of {@code abi} for this OS and CPU. */
    public static String resourceName(Abi abi) {
        return directory() + "librkllmrt-" + abi.label() + ".so";
    }

    /** The resource path of the bundled simulated RKNN runtime (librknnrt.so, image encoders). */
    public static String rknnResourceName() {
        return directory() + LibraryLocator.RKNN_LIBRARY_NAME;
    }

    private static String directory() {
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String machine = switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> arch;
        };
        return "/io/rkllm/ffm/sim/linux-" + machine + "/";
    }

    /**
     * Copies the bundled library for {@code abi} into {@code directory} and returns its path;
     * empty when the jar has no simulated runtime built for this machine.
     */
    public static Optional<Path> extract(Abi abi, Path directory) throws IOException {
        return copy(resourceName(abi), directory.resolve("librkllmrt-" + abi.label() + ".so"));
    }

    /**
     * Copies the bundled simulated RKNN runtime into {@code directory} as {@code librknnrt.so} and
     * returns its path; empty when the jar has none built for this machine.
     */
    public static Optional<Path> extractRknn(Path directory) throws IOException {
        return copy(rknnResourceName(), directory.resolve(LibraryLocator.RKNN_LIBRARY_NAME));
    }

    private static Optional<Path> copy(String resource, Path target) throws IOException {
        try (InputStream in = SimulatedRuntime.class.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            Files.createDirectories(target.getParent());
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            return Optional.of(target);
        }
    }
}
