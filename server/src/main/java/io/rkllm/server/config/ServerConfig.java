package io.rkllm.server.config;

import io.rkllm.rag.RagOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The whole configuration: one immutable tree, built at startup from the YAML file, then the
 * environment, then the command line, and passed down. Nothing reads the environment later.
 */
public record ServerConfig(Server server, Runtime runtime, Models models, Queue queue, Timeouts timeouts,
                           Generation generation, Cache cache, Tasks tasks, RagOptions rag, Embeddings embeddings,
                           Logging logging, Metrics metrics, Security security, Limits limits, Vision vision,
                           Engines engines) {

    /**
     * The engines beside the RKLLM runtime ({@link Runtime}): llama.cpp for GGUF models, and the settings of any other
     * engine the server has, under {@code engines.<name>}, as its provider declares them.
     *
     * @param others each other engine's settings by its name, as text (its provider reads and checks them)
     */
    public record Engines(Llama llama, Map<String, Map<String, String>> others) {
        public Engines {
            others = others == null ? Map.of() : Map.copyOf(others);
        }

        /** The settings of the engine of that name (its defaults, as the file, environment and flags changed them). */
        public Map<String, String> settings(String engine) {
            return others.getOrDefault(engine, Map.of());
        }
    }

    /**
     * llama.cpp for {@code .gguf} models (docs/llama-engine.md).
     *
     * @param enabled  open a libllama at all (false: GGUF models are listed but fail to load, saying so)
     * @param library  the libllama to load (a file, or a directory holding libllama.so); empty = a user-built one in
     *                 /usr/local/lib, Debian's libllama0, LD_LIBRARY_PATH, else the build bundled in the jar
     * @param threads  threads per decode; 0 = the board's big cores (cpu_capacity or cpufreq), else every core
     * @param parallel conversations one loaded GGUF model runs at once (sequences of its context, decoded together,
     *                 sharing its KV cache)
     * @param context  tokens of the KV cache the conversations share, and the most one may hold; 0 = the model's
     *                 training context, capped so that the weights and the KV cache fit in 60% of the memory
     * @param gpuLayers layers offloaded to an accelerator (a GPU build, the RKNPU fork); -1 = the library's default
     * @param kvCache  {@code per_conversation}: each conversation (and the background tasks) a KV cache of its own of
     *                 {@code context} cells; {@code shared}: one cache of {@code context} cells they all share;
     *                 {@code auto}: a cache each when they fit in the memory budget (docs/llama-engine.md)
     * @param promptCacheMb memory for conversations' KV states kept while their sequence serves another, put back
     *                      when they return (llama-server's {@code --cache-ram}); 0 = none kept
     */
    public record Llama(boolean enabled, String library, int threads, int parallel, int context, int gpuLayers,
                        String kvCache, int promptCacheMb) {
    }

    /**
     * The HTTP listener.
     *
     * @param idleTimeout a connection with no traffic for this long is closed (between requests; a request
     *     being handled is never cut by it)
     * @param webUi serve the built-in chat page at {@code /} to browsers (docs/web-ui.md); off, {@code /} answers
     *     every client as Ollama does and the page's files are not served
     */
    public record Server(String host, int port, String publicUrl, Duration idleTimeout, boolean webUi) {
    }

    /**
     * The RKLLM runtime library, its ABI, and how the server works around the faults of a release
     * (docs/runtime-abi.md, "Known faults").
     *
     * @param thinkingFlag when {@code enable_thinking} reaches the runtime: {@code auto} (not on runtime 1.3 for a
     *                     model whose chat template the server sets: thinking is then switched by the template),
     *                     {@code always} (whenever the request thinks) or {@code never}
     * @param eosGuard     end an answer where the runtime went past a special token it did not stop at (the wrong
     *                     EOS id of runtime 1.3): {@code auto} (on for runtime 1.3), {@code on} or {@code off}
     * @param rknnLibrary  the RKNN runtime (librknnrt.so) that runs the image encoders of vision models; empty =
     *                     searched like the RKLLM library
     */
    public record Runtime(String library, String abi, boolean simulate, String thinkingFlag, String eosGuard,
                          String rknnLibrary) {
    }

    /**
     * Where models are, how many stay loaded, and how their memory is checked before a load. Both memory settings
     * count a model by the same estimate (memory_mb of its model.yaml, else 1.3 times its file, per loaded handle);
     * {@code maxMemory} is how much may stay loaded on any runtime, {@code memoryCheck} whether one more
     * {@code rkllm_init} is safe now (runtime 1.3 crashes instead of failing).
     *
     * @param maxLoaded      models loaded at once (a chat model and an embedding model are two)
     * @param maxMemory      what the loaded models may keep together: {@code auto} (60% of the RAM), {@code 0} (no
     *                       limit), or a size such as {@code 6G} or {@code 4096M}; a model that would go beyond it
     *                       loads in place of others
     * @param memoryCheck    check that a model fits in memory before {@code rkllm_init}: {@code auto} (on for
     *                       runtime 1.3, whose failed init crashes the process), {@code on} or {@code off}
     * @param memoryBudgetMb memory the loaded models may take together, in MB, for that check; 0 = what the machine
     *                       has available when the model loads ({@code MemAvailable})
     */
    public record Models(Path dir, int maxLoaded, String maxMemory, Duration idleUnload, Duration loadTimeout,
                         String memoryCheck, int memoryBudgetMb) {
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
     * @param trimTo when a conversation outgrows the context, its oldest exchanges are left out until the rest
     *               fills at most this share of the room it has (the context less the system prompt, the tools
     *               and the answer's reserve)
     */
    public record Cache(boolean enabled, String slots, boolean verify, double trimTo) {
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
     * @param allowPull whether clients may pull and delete models ({@code POST /api/pull}, {@code DELETE /api/delete},
     *                  the chat page's downloads): {@code auto} = when the server listens on loopback only or has
     *                  API keys, {@code on}, {@code off}
     */
    public record Security(List<String> apiKeys, String apiKeyFile, boolean publicModels,
                           List<String> corsOrigins, String allowPull) {
    }

    /**
     * Bounds on what one request may ask for; beyond them a 4xx.
     *
     * @param maxImages pictures in one request, every message counted (Open WebUI resends earlier ones)
     * @param storedResponses Responses API responses kept in memory for previous_response_id (0 = none)
     */
    public record Limits(int maxBodyMb, int maxMessages, int maxTokens, int maxStop, int maxStopLength,
                         int maxTools, int maxImages, int storedResponses) {
    }

    /**
     * Pictures and vision-language models (docs/vision.md).
     *
     * @param textModelImages a picture in the newest message to a text-only model: {@code refuse} (400 naming the
     *                        vision models) or {@code ignore} (answered without it, with a note)
     * @param fetchUrls fetch http(s) image URLs (off: only data: URLs and base64; a server that fetches URLs
     *                  for anyone can be made to reach the network behind it)
     * @param fetchTimeout how long fetching one image URL may take
     * @param maxImageMb the largest picture accepted, in MB after base64 decoding
     * @param maxMegapixels the largest picture accepted, in megapixels (checked before decoding)
     * @param cacheMb memory for image embeddings kept by content, so a resent picture is not encoded again
     * @param cachePolicy how a chat with a picture uses the KV cache: {@code resend} (every turn with a picture
     *                    is sent whole, the picture from the embedding cache) or {@code incremental} (follow-ups
     *                    send only the new message and rely on the runtime keeping image tokens in its cache)
     * @param coResident a vision model may stay loaded beside other models (up to models.max_loaded); off: it
     *                   takes their place, as the NPU memory of both rarely fits
     * @param encoderCores NPU cores of the image encoder: all, auto (one, the runtime's choice), 0, 1, 2, 0_1, 0_1_2
     */
    public record Vision(String textModelImages, boolean fetchUrls, Duration fetchTimeout, int maxImageMb,
                         int maxMegapixels, int cacheMb, String cachePolicy, boolean coResident,
                         String encoderCores) {
    }
}
