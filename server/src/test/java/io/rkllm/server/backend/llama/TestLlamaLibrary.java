package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaLibraryLocator;
import io.rkllm.llama.LlamaRuntime;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The real libllama for the server's tests: the build bundled in the jar, llama.cpp v0.5.0 (or
 * {@code -Dllama.library=PATH}), opened once per JVM (a loaded library stays loaded).
 */
public final class TestLlamaLibrary {
    private TestLlamaLibrary() {
    }

    private static final class Holder {
        static final LlamaRuntime RUNTIME = open();

        private static LlamaRuntime open() {
            Path cache = Path.of(System.getProperty("java.io.tmpdir"), "rkllm-server-test-llama");
            Optional<Path> configured = Optional.ofNullable(System.getProperty("llama.library")).map(Path::of);
            LlamaLibraryLocator locator = new LlamaLibraryLocator(System.getenv(), System.getProperty("os.arch"),
                    cache);
            return LlamaRuntime.open(configured.isPresent() ? locator.locate(configured)
                    : locator.bundled().orElseThrow(), Optional.empty());
        }
    }

    public static LlamaRuntime runtime() {
        return Holder.RUNTIME;
    }
}
