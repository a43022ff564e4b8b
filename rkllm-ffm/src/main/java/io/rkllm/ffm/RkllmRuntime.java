package io.rkllm.ffm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loaded librkllmrt.so bound with the layouts of one ABI. Open it once per process; load models
 * from it. The ABI is forced by the caller or identified from the file, never guessed: binding the
 * wrong one crashes the process inside {@code rkllm_run}.
 */
public final class RkllmRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(RkllmRuntime.class);

    private final Path library;
    private final Abi abi;
    private final LibraryIdentity identity;
    private final NativeApi api;
    private final NativeOutputCapture capture = new NativeOutputCapture();

    private RkllmRuntime(Path library, Abi abi, LibraryIdentity identity, NativeApi api) {
        this.library = library;
        this.abi = abi;
        this.identity = identity;
        this.api = api;
    }

    /**
     * Opens the library at {@code library}. With {@code forcedAbi} empty the ABI is identified from the
     * file, and an unknown or unsupported library is refused with a message saying how to force it.
     */
    public static RkllmRuntime open(Path library, Optional<Abi> forcedAbi) {
        LibraryIdentity identity;
        try {
            identity = new AbiIdentifier().identify(library);
        } catch (IOException e) {
            throw new RkllmException("cannot read the RKLLM runtime library " + library + ": " + e.getMessage());
        }
        Abi abi = choose(identity, forcedAbi);
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new RkllmException("cannot load the RKLLM runtime library " + library + ": " + e.getMessage());
        }
        NativeApi api = NativeApi.bind(lookup, AbiLayouts.of(abi));
        // debug: the server prints its own runtime line (the simulated runtime's without "unknown file hash")
        LOG.debug("RKLLM runtime {} bound with ABI {} ({})", library, abi, identity.evidence());
        return new RkllmRuntime(library, abi, identity, api);
    }

    static Abi choose(LibraryIdentity identity, Optional<Abi> forcedAbi) {
        if (forcedAbi.isPresent()) {
            Abi forced = forcedAbi.get();
            Optional<Abi> found = identity.abi();
            if (found.isPresent() && found.get() != forced) {
                // the layouts would not match the library's: the first callback (or rkllm_run) crashes the JVM
                throw new RkllmException("ABI " + forced + " is forced but " + identity.path() + " is runtime "
                        + identity.version().orElse("?") + " (ABI " + found.get() + "; " + identity.evidence()
                        + "). Binding the wrong ABI crashes the process: remove the forced ABI (auto) or set "
                        + found.get() + ", or point to the library you meant");
            }
            return forced;
        }
        if (identity.abi().isPresent()) {
            return identity.abi().get();
        }
        if (identity.version().isPresent()) {
            throw new RkllmException("RKLLM runtime " + identity.version().get() + " (" + identity.path()
                    + ") is not supported: install runtime 1.2.1-1.2.3 or 1.3.0 from airockchip/rknn-llm");
        }
        throw new RkllmException("cannot tell which RKLLM runtime " + identity.path() + " is ("
                + identity.evidence() + "). Set the ABI explicitly: 1.2 for runtime 1.2.1-1.2.3, 1.3 for 1.3.0");
    }

    public Path library() {
        return library;
    }

    public Abi abi() {
        return abi;
    }

    public LibraryIdentity identity() {
        return identity;
    }

    public boolean supports(RkllmFunction function) {
        return api.supports(function);
    }

    /** The library's own defaults ({@code rkllm_createDefaultParam}), with an empty model path. */
    public ModelParams defaultParams() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = Model.createDefaultParam(api, arena);
            return new ParamCodec(api.layouts()).read(param);
        }
    }

    /** {@code rkllm_init}: blocks while the model loads (seconds on the NPU). */
    public Model load(ModelParams params) {
        return Model.init(api, params, capture);
    }
}
