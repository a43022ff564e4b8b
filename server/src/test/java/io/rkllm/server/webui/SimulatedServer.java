package io.rkllm.server.webui;

import io.rkllm.server.app.CatalogRefresh;
import io.rkllm.server.app.ServedModels;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.app.Simulation;
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
import io.rkllm.server.it.LlamaTestServer;
import io.rkllm.server.models.ModelDiscovery;
import io.rkllm.server.models.TestDiscovery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The server as {@code ./rkllm-server --simulate} runs it, in this process on an ephemeral port: the simulated
 * runtime through the real binding and the bundled simulated models (qwen2.5-0.5b-sim, qwen3-1.7b-sim,
 * qwen3-vl-2b-sim with its image encoder, the embedding model), at five times their simulated speeds.
 */
final class SimulatedServer implements AutoCloseable {
    static final double TIME_SCALE = 0.2;
    private static final Pattern SERIES = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final Simulation simulation;
    private final ServerApp app;
    private final HttpClient http = HttpClient.newHttpClient();

    private SimulatedServer(Simulation simulation, ServerApp app) {
        this.simulation = simulation;
        this.app = app;
    }

    static SimulatedServer start(Path dir, Map<String, String> flags) {
        return start(dir, flags, TIME_SCALE, 0);
    }

    /**
     * As {@link #start(Path, Map)}, every simulated delay multiplied by {@code timeScale}, and with
     * {@code contextLength} &gt; 0 every chat model's context that long (the runtime's limit and the sidecar's).
     */
    static SimulatedServer start(Path dir, Map<String, String> flags, double timeScale, int contextLength) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("runtime.simulate", "true");
        all.put("server.port", "0");
        all.put("logging.access_log", "false");
        all.put("cache.slots", "1");
        all.putAll(flags);
        ServerConfig config = new ConfigLoader(dir).load(Optional.empty(), Map.of(), all).config();
        Simulation simulation = new Simulation(dir.resolve("simulation"));
        try {
            Path models = simulation.models();
            scaleDelays(models, timeScale, contextLength);
            ServerApp app = ServerApp.simulated(config, simulation, models, Map.of());
            return new SimulatedServer(simulation, app);
        } catch (RuntimeException e) {
            simulation.close();
            throw e;
        }
    }

    /**
     * A server that starts with no model at all and pulls from the Hub at {@code hub} (HF_ENDPOINT) into its models
     * directory, whose GGUF models the real llama.cpp library runs: a fresh install, for the page's download.
     */
    static SimulatedServer empty(Path dir, String hub, Map<String, String> flags) {
        // a registry where nothing listens: a name the Hub does not have is never looked for on the internet
        return empty(dir, hub, "http://127.0.0.1:9", flags);
    }

    /** The same, pulling Ollama names from the registry at {@code registry} (RKLLM_REGISTRY). */
    static SimulatedServer empty(Path dir, String hub, String registry, Map<String, String> flags) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("server.port", "0");
        all.put("logging.access_log", "false");
        all.put("engines.llama.threads", "1");
        all.putAll(flags);
        Path models = dir.resolve("models");
        all.put("models.dir", models.toString());
        ServerConfig config = new ConfigLoader(dir).load(Optional.empty(), Map.of(), all).config();
        Simulation simulation = new Simulation(dir.resolve("simulation"));
        try {
            Files.createDirectories(models);
            ModelDiscovery discovery = TestDiscovery.standard();
            CatalogRefresh catalogs = new CatalogRefresh(() -> discovery.discover(models), List.of(models),
                    Duration.ofMillis(50));
            Puller puller = new Puller(() -> Hub.fromEnvironment(Map.of("HF_ENDPOINT", hub, "RKLLM_REGISTRY",
                    registry), "test"),
                    new ModelsDirectory(models, DiskSpace.SYSTEM, List.of(".rkllm", ".gguf")), Board.UNKNOWN,
                    new Puller.Settings(2, Duration.ZERO, Duration.ofSeconds(30)));
            Backends backends = Backends.of(LlamaProvider.NAME, new LlamaBackend(LlamaTestServer.runtime(),
                    new LlamaSettings(1, 1, OptionalInt.empty())));
            return new SimulatedServer(simulation, ServerApp.start(config, backends,
                    new ServedModels(catalogs, Optional.of(puller))));
        } catch (IOException e) {
            simulation.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            simulation.close();
            throw e;
        }
    }

    /**
     * Every delay of the simulated models and encoder (loading, prefill, decoding, encoding) five times shorter,
     * for the suite's time; an answer still streams token by token at their relative speeds.
     */
    private static void scaleDelays(Path models, double timeScale, int contextLength) {
        try (Stream<Path> files = Files.walk(models)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".rkllm") || f.toString().endsWith(".rknn"))
                    .toList()) {
                Files.writeString(file, "\ntime_scale: " + timeScale + "\n", StandardOpenOption.APPEND);
                Path sidecar = file.resolveSibling("model.yaml");
                if (contextLength > 0 && file.toString().endsWith(".rkllm")
                        && Files.readString(sidecar).contains("context_length: 4096")) {
                    Files.writeString(file, "max_context_limit: " + contextLength + "\n", StandardOpenOption.APPEND);
                    Files.writeString(sidecar, Files.readString(sidecar).replace("context_length: 4096",
                            "context_length: " + contextLength));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String url(String path) {
        return "http://127.0.0.1:" + app.port() + path;
    }

    /** A GET with the given headers (name, value, ...): status and body. */
    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The sum of a Prometheus metric's series that carry the given labels (name, value, ...) in /metrics' text
     * exposition; 0 while none has appeared.
     */
    double metric(String name, String... labels) throws IOException, InterruptedException {
        double sum = 0;
        for (String line : get("/metrics").body().lines().toList()) {
            Matcher m = SERIES.matcher(line);
            if (!m.matches() || !m.group(1).equals(name)) {
                continue;
            }
            Map<String, String> found = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(2) == null ? "" : m.group(2));
            while (l.find()) {
                found.put(l.group(1), l.group(2));
            }
            boolean all = true;
            for (int i = 0; i + 1 < labels.length; i += 2) {
                all &= labels[i + 1].equals(found.get(labels[i]));
            }
            if (all) {
                sum += Double.parseDouble(m.group(3));
            }
        }
        return sum;
    }

    @Override
    public void close() {
        app.stop(Duration.ofSeconds(10));
        simulation.close();
    }
}
