package io.rkllm.ffm.rknn;

import io.rkllm.ffm.NativeOutputCapture;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loaded librknnrt.so (RKNN runtime 2.3.x). Open it once per process (find it with
 * {@code LibraryLocator.rknn}); open encoders from it. Its structs have not changed since toolkit
 * 1.6.0, so unlike librkllmrt.so there is one ABI and nothing to choose.
 */
public final class RknnRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(RknnRuntime.class);

    private final Path library;
    private final RknnApi api;
    private final NativeOutputCapture capture = new NativeOutputCapture();

    private RknnRuntime(Path library, RknnApi api) {
        this.library = library;
        this.api = api;
    }

    /** Loads and binds the library; a library without a function the encoder needs is refused. */
    public static RknnRuntime open(Path library) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new RknnException("cannot load the RKNN runtime library " + library + ": " + e.getMessage(), -1);
        }
        RknnRuntime runtime = new RknnRuntime(library, RknnApi.bind(lookup));
        LOG.info("RKNN runtime {} bound", library);
        return runtime;
    }

    static RknnRuntime of(Path library, RknnApi api) {
        return new RknnRuntime(library, api);
    }

    public Path library() {
        return library;
    }

    public boolean supports(RknnFunction function) {
        return api.supports(function);
    }

    /**
     * {@code rknn_init} of an encoder model file (blocks while it loads: about a second warm, ten cold
     * for Qwen3-VL-2B's), then its core mask and its tensors. Anything but {@link CoreMask#AUTO} needs
     * {@code rknn_set_core_mask}.
     */
    public ImageEncoder openEncoder(Path model, CoreMask cores) {
        return ImageEncoder.open(api, model, cores, capture);
    }
}
