package io.rkllm.ffm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Locates the simulated runtime library that the build compiled for this machine and bundled in
 * the jar. It has the exact C ABI of librkllmrt.so, so it is opened like the real one: nothing
 * else in the binding or the server knows it is simulated.
 */
public final class SimulatedRuntime {
    private SimulatedRuntime() {
    }

    /** The resource path of the bundled library of {@code abi} for this OS and CPU. */
    public static String resourceName(Abi abi) {
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String machine = switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> arch;
        };
        return "/io/rkllm/ffm/sim/linux-" + machine + "/librkllmrt-" + abi.label() + ".so";
    }

    /**
     * Copies the bundled library for {@code abi} into {@code directory} and returns its path;
     * empty when the jar has no simulated runtime built for this machine.
     */
    public static Optional<Path> extract(Abi abi, Path directory) throws IOException {
        try (InputStream in = SimulatedRuntime.class.getResourceAsStream(resourceName(abi))) {
            if (in == null) {
                return Optional.empty();
            }
            Files.createDirectories(directory);
            Path target = directory.resolve("librkllmrt-" + abi.label() + ".so");
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            return Optional.of(target);
        }
    }
}
