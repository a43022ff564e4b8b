package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.rknn.RknnException;
import io.rkllm.ffm.rknn.RknnRuntime;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The RKNN runtime (librknnrt.so) that runs vision models' image encoders, opened when the first vision model
 * loads: a server without vision models, or a board without the library, serves text as before. Without the
 * library a vision model fails to load with this class's message, which says where it was looked for.
 */
public final class RknnLibrary implements Supplier<RknnRuntime> {
    private final Optional<Path> library;
    private final String missing;
    private RknnRuntime runtime;

    /**
     * @param library where the library is, if it was found
     * @param missing why there is none, for the error when a vision model needs it
     */
    public RknnLibrary(Optional<Path> library, String missing) {
        this.library = library;
        this.missing = missing;
    }

    /** No RKNN runtime: vision models cannot load. */
    public static RknnLibrary none() {
        return new RknnLibrary(Optional.empty(), "no RKNN runtime (librknnrt.so) was configured");
    }

    public Optional<Path> path() {
        return library;
    }

    @Override
    public synchronized RknnRuntime get() {
        if (runtime == null) {
            Path path = library.orElseThrow(() -> new IllegalStateException(missing));
            try {
                runtime = RknnRuntime.open(path);
            } catch (RknnException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        return runtime;
    }
}
