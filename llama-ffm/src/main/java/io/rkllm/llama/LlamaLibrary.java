package io.rkllm.llama;

import java.nio.file.Path;

/**
 * The libllama file chosen to load, where it came from and why it was chosen (for logs and {@code doctor}).
 */
public record LlamaLibrary(Path path, Origin origin, String reason) {

    public enum Origin {
        /** A path from the configuration or the command line. */
        CONFIGURED,
        /** A library built and installed by the user (upstream llama.cpp or a fork such as the RKNPU one). */
        USER_BUILT,
        /** Debian's libllama0 package. */
        DEBIAN,
        /** Found where the system loader looks (LD_LIBRARY_PATH). */
        LOADER_PATH,
        /** The library the jar carries (npm's prebuilt llama.cpp, fetched by the build), extracted to a cache. */
        BUNDLED
    }
}
