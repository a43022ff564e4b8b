package io.rkllm.llama;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loaded libllama, identified ({@link LibraryIdentity}: layout generation and KV API) and initialised
 * ({@code llama_backend_init}, ggml's backends, the log routed to SLF4J). Open it once per process and load
 * models from it; it stays loaded until the process ends (a shared library cannot be unloaded safely while
 * upcall stubs and threads of it may live).
 */
public final class LlamaRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(LlamaRuntime.class);
    /**
     * llama_log_set is global to a loaded library: one sink per library (by the address of its llama_log_set),
     * shared by every runtime opened on it, so that a second runtime does not silence the first one's errors.
     */
    private static final Map<Long, LogSink> SINKS = new ConcurrentHashMap<>();

    private final NativeLlama api;
    private final LogSink log;
    private final LibraryInfo info;

    private LlamaRuntime(NativeLlama api, LogSink log, LibraryInfo info) {
        this.api = api;
        this.log = log;
        this.info = info;
    }

    /**
     * Opens {@code library}. With {@code forced} empty the layout generation is identified from the library; a
     * forced one is still checked against the library's defaults (a wrong layout corrupts memory).
     *
     * @throws LlamaException when the file cannot be loaded or is not a llama.cpp build the binding knows
     */
    public static LlamaRuntime open(LlamaLibrary library, Optional<LayoutGeneration> forced) {
        return open(library, forced, Optional.empty());
    }

    /**
     * As {@link #open(LlamaLibrary, Optional)}, with the KV cache calls of {@code kvApi} instead of the newest the
     * library exports (builds keep the previous generation's names for a while, deprecated).
     */
    public static LlamaRuntime open(LlamaLibrary library, Optional<LayoutGeneration> forced, Optional<KvApi> kvApi) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library.path(), Arena.global());
        } catch (IllegalArgumentException e) {
            // the JDK does not say why dlopen failed; for the bundled build it is nearly always a system older than
            // the one it was built on (Ubuntu 22.04: glibc 2.34, GCC 11's libstdc++)
            throw new LlamaException("cannot load the llama.cpp library " + library.path() + ": " + e.getMessage()
                    + (library.origin() == LlamaLibrary.Origin.BUNDLED
                    ? " (the bundled llama.cpp needs glibc 2.34 and GCC 11's libstdc++ or newer: Debian 12, Ubuntu"
                    + " 22.04 or later; on an older system build llama.cpp there and set engines.llama.library)"
                    : " (a library built for another system, or one whose dependencies are missing)"), e);
        }
        LibraryIdentity identity = new LibraryIdentifier(lookup).identify(forced, kvApi);
        NativeLlama api = new NativeLlama(lookup, LlamaLayouts.of(identity.generation()));
        if (identity.kvApi() == KvApi.MEMORY) {
            MemoryKvCache.bind(api);
        } else {
            ContextKvCache.bind(api, identity.kvApi());
        }
        long logSet = lookup.find("llama_log_set").orElseThrow().address();
        LogSink log = SINKS.computeIfAbsent(logSet, address -> {
            LogSink sink = new LogSink();
            api.call("llama_log_set", sink.stub(Arena.global()), MemorySegment.NULL);
            return sink;
        });
        api.call("llama_backend_init");
        List<String> devices = loadBackends(api, library);
        String system = ((MemorySegment) api.call("llama_print_system_info")).reinterpret(1 << 16).getString(0).strip();
        LOG.debug("llama.cpp library {} ({}): {}", library.path(), library.reason(), identity.evidence());
        return new LlamaRuntime(api, log, new LibraryInfo(library, identity, system, devices));
    }

    /**
     * Builds with backends in separate libraries (libggml-cpu-*.so beside libllama, or in ggml's backend
     * directory) have none until they are loaded; builds with the CPU backend linked in have it already.
     */
    private static List<String> loadBackends(NativeLlama api, LlamaLibrary library) {
        if (!api.has("ggml_backend_dev_count")) {
            return List.of();
        }
        if ((long) api.call("ggml_backend_dev_count") == 0 && api.has("ggml_backend_load_all_from_path")) {
            try (Arena arena = Arena.ofConfined()) {
                api.call("ggml_backend_load_all_from_path",
                        arena.allocateFrom(library.path().toAbsolutePath().getParent().toString()));
            }
        }
        if ((long) api.call("ggml_backend_dev_count") == 0 && api.has("ggml_backend_load_all")) {
            api.call("ggml_backend_load_all");
        }
        long count = (long) api.call("ggml_backend_dev_count");
        if (count == 0) {
            throw new LlamaException("the llama.cpp library " + library.path() + " found no ggml backend (not even "
                    + "the CPU one): its libggml-cpu*.so are missing");
        }
        List<String> devices = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            MemorySegment device = (MemorySegment) api.call("ggml_backend_dev_get", i);
            String name = ((MemorySegment) api.call("ggml_backend_dev_name", device)).reinterpret(256).getString(0);
            String description = ((MemorySegment) api.call("ggml_backend_dev_description", device))
                    .reinterpret(1024).getString(0);
            devices.add(name + " (" + description + ")");
        }
        return List.copyOf(devices);
    }

    public LibraryInfo info() {
        return info;
    }

    /**
     * Loads a GGUF model. The file is checked in Java first (a damaged or truncated file is refused with its
     * reason); libllama's own refusal comes with the errors it logged.
     *
     * @throws LlamaException when the model cannot be loaded
     */
    public LlamaModel load(ModelParams params) {
        return LlamaModel.load(api, log, info.identity().kvApi(), params);
    }
}
