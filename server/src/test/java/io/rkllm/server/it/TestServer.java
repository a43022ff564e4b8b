package io.rkllm.server.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.ffm.Abi;
import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.ffm.SimulatedRuntime;
import io.rkllm.server.ServerApp;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDiscovery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A real server on an ephemeral port, on the simulated runtime of one ABI (through the real
 * binding), with simulated models written into a temporary directory at zero delay.
 */
public final class TestServer implements AutoCloseable {
    static final MediaType JSON_TYPE = MediaType.get("application/json");
    static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private final ServerApp app;
    private final OkHttpClient client = new OkHttpClient.Builder().readTimeout(60, TimeUnit.SECONDS)
            .callTimeout(120, TimeUnit.SECONDS).build();

    private TestServer(Path dir, ServerApp app) {
        this.dir = dir;
        this.app = app;
    }

    /** Builder of the models directory and configuration. */
    public static final class Builder {
        private final Path dir;
        private Abi abi = Abi.V1_3;
        private final Map<String, Map<String, String>> models = new LinkedHashMap<>();
        private final Map<String, String> sidecars = new LinkedHashMap<>();
        private final Map<String, String> flags = new LinkedHashMap<>();

        Builder(Path dir) {
            this.dir = dir;
        }

        public Builder abi(Abi value) {
            abi = value;
            return this;
        }

        /** A simulated model in its own folder; keys of the sim model file override the zero-delay defaults. */
        public Builder model(String id, Map<String, String> keys) {
            models.put(id, keys);
            return this;
        }

        public Builder sidecar(String id, String yaml) {
            sidecars.put(id, yaml);
            return this;
        }

        public Builder set(String key, String value) {
            flags.put(key, value);
            return this;
        }

        public TestServer start() {
            try {
                Path modelsDir = Files.createDirectories(dir.resolve("models"));
                for (var m : models.entrySet()) {
                    Path folder = Files.createDirectories(modelsDir.resolve(m.getKey()));
                    Map<String, String> keys = new LinkedHashMap<>();
                    keys.put("name", m.getKey());
                    keys.put("time_scale", "0");
                    keys.put("trace", dir.resolve(m.getKey() + ".trace.jsonl").toString());
                    keys.putAll(m.getValue());
                    StringBuilder text = new StringBuilder("#rkllm-sim 1\n");
                    keys.forEach((k, v) -> text.append(k).append(": ").append(v).append('\n'));
                    Files.writeString(folder.resolve(m.getKey() + ".rkllm"), text);
                    if (sidecars.containsKey(m.getKey())) {
                        Files.writeString(folder.resolve("model.yaml"), sidecars.get(m.getKey()));
                    }
                }
                Path library = SimulatedRuntime.extract(abi, dir.resolve("lib")).orElseThrow();
                Map<String, String> all = new LinkedHashMap<>();
                all.put("server.port", "0");
                all.put("models.dir", modelsDir.toString());
                all.put("runtime.library", library.toString());
                all.put("runtime.abi", abi.label());
                all.put("logging.access_log", "false");
                // one KV cache per model unless a test asks for more (the default, auto, depends on the RAM)
                all.put("cache.slots", "1");
                all.putAll(flags);
                ServerConfig config = new ConfigLoader(dir).load(Optional.empty(), Map.of(), all).config();
                RkllmRuntime runtime = RkllmRuntime.open(library, Optional.of(abi));
                DiscoveryResult discovery = new ModelDiscovery().discover(modelsDir);
                if (discovery.hasErrors()) {
                    throw new IllegalStateException("model discovery failed: " + discovery.errors());
                }
                return new TestServer(dir, ServerApp.start(config, runtime, discovery.catalog()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public static Builder in(Path dir) {
        return new Builder(dir);
    }

    public String url(String path) {
        return "http://127.0.0.1:" + app.port() + path;
    }

    public int port() {
        return app.port();
    }

    public ServerApp app() {
        return app;
    }

    public OkHttpClient client() {
        return client;
    }

    public Response post(String path, String json) throws IOException {
        return client.newCall(new Request.Builder().url(url(path)).post(RequestBody.create(json, JSON_TYPE)).build())
                .execute();
    }

    public Response get(String path) throws IOException {
        return client.newCall(new Request.Builder().url(url(path)).get().build()).execute();
    }

    /** Status and body of a POST. */
    public Reply postForReply(String path, String json) throws IOException {
        try (Response r = post(path, json)) {
            return new Reply(r.code(), r.body().string(), r.headers().toMultimap());
        }
    }

    public Reply getForReply(String path) throws IOException {
        try (Response r = get(path)) {
            return new Reply(r.code(), r.body().string(), r.headers().toMultimap());
        }
    }

    /** Every trace line the simulated runtime wrote for a model, in order. */
    public List<JsonNode> trace(String model) {
        Path file = dir.resolve(model + ".trace.jsonl");
        List<JsonNode> lines = new ArrayList<>();
        try {
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file)) {
                    lines.add(JSON.readTree(line));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    public List<JsonNode> runs(String model) {
        return trace(model).stream().filter(n -> n.path("call").asText().equals("run")).toList();
    }

    @Override
    public void close() {
        app.stop(Duration.ofSeconds(5));
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }

    /** An HTTP answer. */
    public record Reply(int status, String body, Map<String, List<String>> headers) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public String header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue().getFirst();
                }
            }
            return null;
        }
    }
}
