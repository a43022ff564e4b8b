package io.rkllm.server.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.ffm.Abi;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.harness.LocalServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    private final LocalServer server;
    private final ServerApp app;
    private final OkHttpClient client = new OkHttpClient.Builder().readTimeout(60, TimeUnit.SECONDS)
            .callTimeout(120, TimeUnit.SECONDS).build();

    private TestServer(LocalServer server) {
        this.server = server;
        this.app = server.app();
    }

    /** Builder of the models directory and configuration. */
    public static final class Builder {
        private final Path dir;
        private Abi abi = Abi.V1_3;
        private final Map<String, Map<String, String>> models = new LinkedHashMap<>();
        private final Map<String, String> sidecars = new LinkedHashMap<>();
        private final Map<String, String> flags = new LinkedHashMap<>();
        private final Map<String, Map<String, String>> encoders = new LinkedHashMap<>();

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

        /**
         * A simulated image encoder beside model {@code id} (a vision model; its tags come from its name's family or
         * its sidecar); keys of the encoder file override the zero-delay defaults.
         */
        public Builder encoder(String id, Map<String, String> keys) {
            encoders.put(id, keys);
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
            Map<String, Map<String, String>> files = new LinkedHashMap<>();
            for (var m : models.entrySet()) {
                Map<String, String> keys = new LinkedHashMap<>();
                keys.put("time_scale", "0");
                keys.putAll(m.getValue());
                files.put(m.getKey(), keys);
            }
            Map<String, String> all = new LinkedHashMap<>();
            // one KV cache per model unless a test asks for more (the default, auto, depends on the RAM)
            all.put("cache.slots", "1");
            all.putAll(flags);
            Map<String, Map<String, String>> encoderFiles = new LinkedHashMap<>();
            for (var e : encoders.entrySet()) {
                Map<String, String> keys = new LinkedHashMap<>();
                keys.put("time_scale", "0");
                keys.putAll(e.getValue());
                encoderFiles.put(e.getKey(), keys);
            }
            return new TestServer(LocalServer.start(dir, abi, files, encoderFiles, sidecars, all));
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
        return server.trace(model);
    }

    /** Every trace line of a model's simulated image encoder, in order. */
    public List<JsonNode> encoderTrace(String model) {
        return server.encoderTrace(model);
    }

    /**
     * Waits until the simulated runtime has begun a run of the model (its {@code run_start} trace line: model key
     * {@code trace_run_start: 1}): a test that must act during a run's prefill or generation acts after it, never
     * between the worker taking the job and the native call.
     */
    public void awaitRunStart(String model) throws Exception {
        Poll.until("a run of " + model + " to begin in the runtime", Duration.ofSeconds(10), () -> trace(model),
                t -> t.stream().anyMatch(l -> l.path("call").asText().equals("run_start")));
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
