package io.rkllm.server.it;

import io.rkllm.llama.LlamaLibraryLocator;
import io.rkllm.llama.LlamaRuntime;
import io.rkllm.llama.gguf.TinyBert;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.app.CatalogRefresh;
import io.rkllm.server.app.ServedModels;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.backend.llama.LlamaBackend;
import io.rkllm.server.backend.llama.LlamaProvider;
import io.rkllm.server.backend.llama.LlamaSettings;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.download.Board;
import io.rkllm.server.download.DiskSpace;
import io.rkllm.server.download.Hub;
import io.rkllm.server.download.ModelsDirectory;
import io.rkllm.server.download.Puller;
import io.rkllm.server.engine.Backends;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDiscovery;
import io.rkllm.server.models.TestDiscovery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A real server on an ephemeral port whose models are tiny GGUF models generated into a temporary models directory
 * ({@link TinyLlama}, {@link TinyBert}), served by the real llama.cpp library (the jar's bundled llama.cpp v0.5.0,
 * opened once per JVM) through the real binding, with one decode thread.
 */
public final class LlamaTestServer implements AutoCloseable {
    static final MediaType JSON_TYPE = MediaType.get("application/json");

    private final ServerApp app;
    private final DiscoveryResult discovery;
    private final OkHttpClient client = new OkHttpClient.Builder().readTimeout(60, TimeUnit.SECONDS)
            .callTimeout(120, TimeUnit.SECONDS).build();

    private LlamaTestServer(ServerApp app, DiscoveryResult discovery) {
        this.app = app;
        this.discovery = discovery;
    }

    /** The bundled libllama, opened once per JVM (a loaded library stays loaded). */
    private static final class Library {
        static final LlamaRuntime RUNTIME = open();

        private static LlamaRuntime open() {
            Path cache = Path.of(System.getProperty("java.io.tmpdir"), "rkllm-server-test-llama");
            Optional<Path> configured = Optional.ofNullable(System.getProperty("llama.library")).map(Path::of);
            LlamaLibraryLocator locator = new LlamaLibraryLocator(System.getenv(), System.getProperty("os.arch"), cache);
            return LlamaRuntime.open(configured.isPresent() ? locator.locate(configured)
                    : locator.bundled().orElseThrow(), Optional.empty());
        }
    }

    public static LlamaRuntime runtime() {
        return Library.RUNTIME;
    }

    static Builder in(Path dir) {
        return new Builder(dir);
    }

    static final class Builder {
        private final Path dir;
        private final Map<String, Generator> models = new LinkedHashMap<>();
        private final Map<String, byte[]> files = new LinkedHashMap<>();
        private final Map<String, String> flags = new LinkedHashMap<>();
        /** {@code engines.llama.parallel}; the configuration's default when not set. */
        private Integer parallel;
        private Optional<String> hub = Optional.empty();

        private Optional<String> registry = Optional.empty();

        Builder(Path dir) {
            this.dir = dir;
        }

        /** A tiny GGUF model in its own folder: its id is the folder's name. */
        Builder model(String id, TinyLlama.Options options) {
            models.put(id, file -> TinyLlama.write(file, options));
            return this;
        }

        /** A tiny BERT reranker in its own folder, the same way. */
        Builder reranker(String id, TinyBert.Options options) {
            models.put(id, file -> TinyBert.write(file, options));
            return this;
        }

        /** Any file under the models directory (a damaged model). */
        Builder file(String relative, byte[] content) {
            files.put(relative, content);
            return this;
        }

        Builder parallel(int value) {
            parallel = value;
            return this;
        }

        Builder set(String key, String value) {
            flags.put(key, value);
            return this;
        }

        /**
         * Pulls from this Hub ({@code HF_ENDPOINT}) into the models directory, whose catalogue then follows the
         * directory as the server's does.
         */
        Builder pullsFrom(String endpoint) {
            hub = Optional.of(endpoint);
            return this;
        }

        /** Pulls Ollama's names from this registry ({@code RKLLM_REGISTRY}); none otherwise (a closed port). */
        Builder pullsFromRegistry(String endpoint) {
            registry = Optional.of(endpoint);
            return this;
        }

        LlamaTestServer start() {
            try {
                Path modelsDir = Files.createDirectories(dir.resolve("models"));
                for (var m : models.entrySet()) {
                    Path folder = Files.createDirectories(modelsDir.resolve(m.getKey()));
                    m.getValue().write(folder.resolve(m.getKey() + ".gguf"));
                }
                for (var f : files.entrySet()) {
                    Path file = modelsDir.resolve(f.getKey());
                    Files.createDirectories(file.getParent());
                    Files.write(file, f.getValue());
                }
                Map<String, String> all = new LinkedHashMap<>();
                all.put("server.port", "0");
                all.put("logging.access_log", "false");
                all.put("engines.llama.threads", "1");
                if (parallel != null) {
                    all.put("engines.llama.parallel", Integer.toString(parallel));
                }
                all.putAll(flags);
                all.put("models.dir", modelsDir.toString());
                ServerConfig config = new ConfigLoader(dir).load(Optional.empty(), Map.of(), all).config();
                int sequences = config.engines().llama().parallel();
                ModelDiscovery discover = TestDiscovery.of(config);
                Backends backends = Backends.of(LlamaProvider.NAME, new LlamaBackend(runtime(), new LlamaSettings(1, sequences,
                        OptionalInt.empty(), io.rkllm.server.backend.llama.KvLayout.of(config.engines().llama()
                        .kvCache(), 0, config.engines().llama().context()))));
                if (hub.isEmpty() && registry.isEmpty()) {
                    DiscoveryResult discovery = discover.discover(modelsDir);
                    return new LlamaTestServer(ServerApp.start(config, backends, discovery.catalog()), discovery);
                }
                CatalogRefresh catalogs = new CatalogRefresh(() -> discover.discover(modelsDir), List.of(modelsDir),
                        Duration.ofMillis(50));
                Puller puller = new Puller(() -> Hub.fromEnvironment(Map.of("HF_ENDPOINT", hub.orElse("http://127.0.0.1:9"), "RKLLM_REGISTRY",
                        registry.orElse("http://127.0.0.1:9")), "test"),
                        new ModelsDirectory(modelsDir, DiskSpace.SYSTEM, List.of(".rkllm", ".gguf")), Board.UNKNOWN,
                        new Puller.Settings(2, Duration.ZERO, Duration.ofSeconds(30)));
                return new LlamaTestServer(ServerApp.start(config, backends, new ServedModels(catalogs,
                        Optional.of(puller))), catalogs.initial());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private interface Generator {
        void write(Path file) throws IOException;
    }

    DiscoveryResult discovery() {
        return discovery;
    }

    okhttp3.OkHttpClient client() {
        return client;
    }

    int port() {
        return app.port();
    }

    String url(String path) {
        return "http://127.0.0.1:" + app.port() + path;
    }

    TestServer.Reply post(String path, String json) throws IOException {
        return post(path, json, Map.of());
    }

    /** A POST with these headers too (a client's own: authorization, user information). */
    TestServer.Reply post(String path, String json, Map<String, String> headers) throws IOException {
        Request.Builder request = new Request.Builder().url(url(path)).post(RequestBody.create(json, JSON_TYPE));
        headers.forEach(request::header);
        try (Response r = client.newCall(request.build()).execute()) {
            return new TestServer.Reply(r.code(), r.body().string(), r.headers().toMultimap());
        }
    }

    /** A DELETE with a JSON body (Ollama's /api/delete). */
    TestServer.Reply delete(String path, String json) throws IOException {
        try (Response r = client.newCall(new Request.Builder().url(url(path)).delete(RequestBody.create(json,
                JSON_TYPE)).build()).execute()) {
            return new TestServer.Reply(r.code(), r.body().string(), r.headers().toMultimap());
        }
    }

    /** A POST whose answer is read by the caller (a stream). */
    Response open(String path, String json) throws IOException {
        return client.newCall(new Request.Builder().url(url(path)).post(RequestBody.create(json, JSON_TYPE)).build())
                .execute();
    }

    TestServer.Reply get(String path) throws IOException {
        try (Response r = client.newCall(new Request.Builder().url(url(path)).get().build()).execute()) {
            return new TestServer.Reply(r.code(), r.body().string(), r.headers().toMultimap());
        }
    }

    @Override
    public void close() {
        app.stop(Duration.ofSeconds(5));
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }
}
