package io.rkllm.server.config;

import io.rkllm.rag.RagOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The whole configuration: one immutable tree, built at startup from the YAML file, then the
 * environment, then the command line, and passed down. Nothing reads the environment later.
 */
public record ServerConfig(Server server, Runtime runtime, Models models, Queue queue, Timeouts timeouts,
                           Generation generation, Cache cache, Tasks tasks, RagOptions rag, Embeddings embeddings,
                           Logging logging, Metrics metrics, Security security, Limits limits) {

    /**
     * The HTTP listener.
     *
     * @param idleTimeout a connection with no traffic for this long is closed (between requests; a request
     *     being handled is never cut by it)
     */
    public record Server(String host, int port, String publicUrl, Duration idleTimeout) {
    }

    /** The RKLLM runtime library and its ABI. */
    public record Runtime(String library, String abi, boolean simulate) {
    }

    /**
     * Where models are and how many stay loaded.
     *
     * @param maxLoaded models loaded at once (a chat model and an embedding model are two)
     * @param maxMemory what the loaded models may take together, estimated from their files: {@code auto} (60% of
     *                  the RAM), {@code 0} (no limit), or a size such as {@code 6G} or {@code 4096M}; a model that
     *                  would go beyond it loads in place of others
     */
    public record Models(Path dir, int maxLoaded, String maxMemory, Duration idleUnload, Duration loadTimeout) {
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

    /**
     * The conversation-aware KV cache policy.
     *
     * @param enabled send only what the cache does not hold yet (off = clear and resend every request)
     * @param slots handles per model, each with its own KV cache (each costs the model's memory again):
     *              a number, or {@code auto} (two when two copies of the model fit in 60% of the RAM, else one)
     * @param verify compare the bookkeeping with rkllm_get_kv_cache_size before reusing a cache
     */
    public record Cache(boolean enabled, String slots, boolean verify) {
    }

    /**
     * Open WebUI's background task requests (title, tags, follow-ups, queries, autocomplete).
     *
     * @param prefixes a request whose only message starts with one of these is a task
     * @param title how to answer: derive (from the request, no inference) or model
     * @param model a separate model for tasks; empty = the chat's own model, without touching its cache
     */
    public record Tasks(List<String> prefixes, String title, String tags, String followUps,
                        String queries, String autocomplete, String other, int maxTokens, String model) {
    }

    /**
     * Embedding models ({@code POST /v1/embeddings}, {@code /api/embed}).
     *
     * @param maxWaiting requests that may wait per embedding model: Open WebUI sends a document's chunks all at
     *                   once, one request each
     * @param waitTimeout longest wait in the queue before a 503
     * @param maxInputs most texts in one request
     */
    public record Embeddings(int maxWaiting, Duration waitTimeout, int maxInputs) {
    }

    /** Log output. */
    public record Logging(String level, boolean accessLog) {
    }

    /**
     * The Prometheus endpoint {@code GET /metrics}.
     *
     * @param enabled serve {@code /metrics} (off = the route does not exist and nothing is measured)
     * @param sysfsRoot where sysfs is mounted, for the NPU's load and frequency ({@code /sys}; another path in
     *                  tests or in a container that mounts the host's sysfs elsewhere)
     */
    public record Metrics(boolean enabled, Path sysfsRoot) {
    }

    /**
     * Who may call the API.
     *
     * @param apiKeys keys a client must send (Authorization: Bearer KEY or X-Api-Key: KEY); none = no authentication
     * @param apiKeyFile a file with one key per line ({@code #} comments), added to {@code apiKeys}
     * @param publicModels GET /v1/models and /v1/models/{id} answer without a key
     * @param corsOrigins browser origins allowed to call the API ({@code *} = any); none = same-origin only
     */
    public record Security(List<String> apiKeys, String apiKeyFile, boolean publicModels,
                           List<String> corsOrigins) {
    }

    /** Bounds on what one request may ask for; beyond them a 4xx. */
    public record Limits(int maxBodyMb, int maxMessages, int maxTokens, int maxStop, int maxStopLength,
                         int maxTools) {
    }
}
