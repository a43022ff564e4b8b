package io.rkllm.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The whole configuration: one immutable tree, built at startup from the YAML file, then the
 * environment, then the command line, and passed down. Nothing reads the environment later.
 */
public record ServerConfig(Server server, Runtime runtime, Models models, Queue queue, Timeouts timeouts,
                           Generation generation, Logging logging) {

    /** The HTTP listener. */
    public record Server(String host, int port, String publicUrl) {
    }

    /** The RKLLM runtime library and its ABI. */
    public record Runtime(String library, String abi, boolean simulate) {
    }

    /** Where models are and how many stay loaded. */
    public record Models(Path dir, int maxLoaded, Duration idleUnload, Duration loadTimeout) {
    }

    /** The per-model FIFO queue. */
    public record Queue(int maxWaiting, Duration waitTimeout, Duration keepAlive) {
    }

    /** Watchdogs: each aborts the run with a clear error. */
    public record Timeouts(Duration firstToken, Duration silence, Duration total) {
    }

    /** Generation defaults applied when a request does not say. */
    public record Generation(int defaultMaxTokens, int reservedOutputTokens, boolean thinkingDefault) {
    }

    /** Log output. */
    public record Logging(String level, boolean accessLog) {
    }
}
