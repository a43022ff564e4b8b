package io.rkllm.server.backend.llama;

import io.rkllm.llama.LibraryInfo;
import io.rkllm.llama.LlamaException;
import io.rkllm.llama.LlamaLibrary;
import io.rkllm.llama.LlamaLibraryLocator;
import io.rkllm.llama.LlamaRuntime;
import io.rkllm.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens llama.cpp's library for GGUF models as the configuration says ({@code engines.llama.*}), or says why not: the
 * library the locator chose (configured, user-built, Debian's, on LD_LIBRARY_PATH, else the one bundled in the jar),
 * identified and initialised once per process.
 *
 * @param runtime the opened library, when it opened
 * @param missing why it did not (with the fix); empty when it did
 */
public record LlamaOpening(Optional<LlamaRuntime> runtime, String missing) {
    private static final Logger LOG = LoggerFactory.getLogger(LlamaOpening.class);

    /** Not opened at all, with the reason. */
    static LlamaOpening absent(String why) {
        return new LlamaOpening(Optional.empty(), why);
    }

    public static LlamaOpening open(ServerConfig.Llama config) {
        if (!config.enabled()) {
            return absent("engines.llama.enabled is false");
        }
        Optional<Path> configured = config.library().isBlank() ? Optional.empty()
                : Optional.of(Path.of(config.library()));
        LlamaLibraryLocator locator = LlamaLibraryLocator.system();
        try {
            return new LlamaOpening(Optional.of(LlamaRuntime.open(locator.locate(configured), Optional.empty())), "");
        } catch (LlamaException | IllegalStateException | java.io.UncheckedIOException e) {
            String why = e.getMessage() + " (set engines.llama.library or --llama-library to a libllama.so)";
            // an installed library found by searching (Debian's, a user's build) that does not open is no reason to
            // go without llama.cpp when the jar carries one; a configured one is the user's choice and stays refused
            return configured.isPresent() ? absent(why) : bundledInstead(locator, why);
        }
    }

    private static LlamaOpening bundledInstead(LlamaLibraryLocator locator, String why) {
        try {
            Optional<LlamaLibrary> bundled = locator.bundled();
            if (bundled.isEmpty()) {
                return absent(why);
            }
            LlamaRuntime runtime = LlamaRuntime.open(bundled.get(), Optional.empty());
            LOG.warn("the installed llama.cpp library could not be used ({}); using the one bundled in the jar", why);
            return new LlamaOpening(Optional.of(runtime), "");
        } catch (LlamaException | IllegalStateException | java.io.UncheckedIOException e) {
            return absent(why + "; the bundled one did not open either: " + e.getMessage());
        }
    }

    /**
     * The backend over the opened library, with the threads, sequences and KV caches the configuration gives, on a
     * machine of {@code memoryBytes} (0: unknown), as discovery counted them ({@link #limits}).
     */
    public LlamaBackend backend(ServerConfig.Llama config, long memoryBytes) {
        return new LlamaBackend(runtime.orElseThrow(), settings(config, memoryBytes));
    }

    /** The backend's settings from the configuration ({@code threads: 0}: the big cores). */
    public static LlamaSettings settings(ServerConfig.Llama config, long memoryBytes) {
        return new LlamaSettings(config.threads() > 0 ? config.threads() : BigCores.count(),
                config.parallel(), config.gpuLayers() >= 0 ? OptionalInt.of(config.gpuLayers()) : OptionalInt.empty(),
                KvLayout.of(config.kvCache(), memoryBytes, config.context()), (long) config.promptCacheMb() << 20);
    }

    /** How GGUF models are served, for discovery: their sequences, the context asked for, the machine's memory. */
    static GgufLimits limits(ServerConfig config, long memoryBytes) {
        return new GgufLimits(config.engines().llama().parallel(), config.engines().llama().context(), memoryBytes,
                KvLayout.Mode.of(config.engines().llama().kvCache()));
    }

    /** One line for the banner and {@code doctor}: the library, why it was chosen, its build and its devices. */
    public String summary() {
        if (runtime.isEmpty()) {
            return LlamaBackend.NAME + ": not available: " + missing;
        }
        LibraryInfo info = runtime.get().info();
        return LlamaBackend.NAME + " " + info.library().path() + " (" + info.library().origin().name()
                .toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": " + info.library().reason() + "; "
                + LlamaBackend.label(info) + "; devices " + String.join(", ", info.devices())
                + info.cpuVariant().map(v -> "; CPU backend " + v).orElse("") + "): .gguf models";
    }
}
