package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.LibraryLocator;
import io.rkllm.ffm.RkllmException;
import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.ffm.SimulatedRuntime;
import io.rkllm.server.config.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Finds and opens the RKLLM runtime library the configuration asks for (or the simulated one), and finds the RKNN
 * runtime for image encoders, with a fix in every error.
 */
final class RkllmLibraries {
    private RkllmLibraries() {
    }

    /** The runtime library is not there or does not open; the message says why, with the fix. */
    static final class Missing extends RuntimeException {
        Missing(String message) {
            super(message);
        }
    }

    /**
     * The RKNN runtime for vision models' image encoders: the simulated one with {@code --simulate}, else
     * {@code runtime.rknn_library}, else librknnrt.so found like librkllmrt.so. Nothing is opened here.
     */
    static RknnLibrary rknn(ServerConfig.Runtime config, Optional<Path> simulation, Map<String, String> environment) {
        if (simulation.isPresent()) {
            return new RknnLibrary(extract(() -> SimulatedRuntime.extractRknn(simulation.get().resolve("lib"))),
                    "this jar has no simulated RKNN runtime built for " + System.getProperty("os.arch"));
        }
        if (!config.rknnLibrary().isBlank()) {
            Path configured = Path.of(config.rknnLibrary());
            return new RknnLibrary(Files.exists(configured) ? Optional.of(configured) : Optional.empty(),
                    "the RKNN runtime library " + configured + " does not exist (runtime.rknn_library)");
        }
        LibraryLocator locator = LibraryLocator.rknn(environment);
        return new RknnLibrary(locator.locate(Optional.empty()), "vision models need the RKNN runtime "
                + LibraryLocator.RKNN_LIBRARY_NAME + ", which was not found in " + locator.searchPath()
                + ". Install it from airockchip/rknn-llm (rkllm-runtime/Linux/librkllm_api/aarch64/librknnrt.so"
                + " -> /usr/lib/) or set runtime.rknn_library");
    }

    /** @param simulation with {@code --simulate}, the directory the simulated runtime is copied into */
    static RkllmRuntime open(ServerConfig.Runtime config, Optional<Path> simulation, Map<String, String> environment) {
        Optional<Abi> forced = Abi.parseChoice(config.abi());
        Path library;
        if (simulation.isPresent()) {
            Abi abi = forced.orElse(Abi.V1_3);
            library = extract(() -> SimulatedRuntime.extract(abi, simulation.get().resolve("lib"))).orElseThrow(() ->
                    new Missing(
                    "this jar has no simulated runtime built for " + System.getProperty("os.arch")
                            + ": build it on this machine with ./mvnw -B verify"));
        } else {
            Optional<Path> configured = config.library().isBlank() ? Optional.empty()
                    : Optional.of(Path.of(config.library()));
            LibraryLocator locator = new LibraryLocator(environment);
            library = locator.locate(configured).orElseThrow(() -> new Missing(configured.isPresent()
                    ? "the RKLLM runtime library " + configured.get() + " does not exist (runtime.library / --library)"
                    : "the RKLLM runtime library " + LibraryLocator.LIBRARY_NAME + " was not found in "
                            + locator.searchPath() + ". Install it from airockchip/rknn-llm (rkllm-runtime/Linux/"
                            + "librkllm_api/aarch64/librkllmrt.so -> /usr/lib/), set --library PATH, or try "
                            + "--simulate"));
        }
        try {
            return RkllmRuntime.open(library, forced);
        } catch (RkllmException e) {
            throw new Missing(e.getMessage()
                    + (forced.isEmpty() ? " (--abi 1.2|1.3, RKLLM_RUNTIME_ABI, or runtime.abi in the config file)"
                    : ""));
        }
    }

    /** A simulated runtime copied out of the jar; empty when the jar has none built for this machine. */
    private static Optional<Path> extract(Extraction extraction) {
        try {
            return extraction.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private interface Extraction {
        Optional<Path> run() throws IOException;
    }
}
