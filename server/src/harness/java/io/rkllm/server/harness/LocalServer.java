package io.rkllm.server.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.ffm.Abi;
import io.rkllm.ffm.SimulatedRuntime;
import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.app.Engines;
import io.rkllm.server.app.ServedModels;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.app.TemporaryDirectory;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.models.DiscoveryResult;
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

/**
 * A server in this process on the simulated runtime, with simulated model files written into a
 * directory and the runtime's trace enabled: what {@code fuzz} and {@code soak} (the tools module) run
 * against when no {@code --url} is given, and what the tests' servers are. Its folder (src/harness/java) is
 * compiled with the server's tests and into the tools jar, never into the server's: the server's own tests need it
 * too, and they cannot depend on the module that depends on them.
 */
public final class LocalServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private final ServerApp app;
    private final boolean ownsDirectory;

    private LocalServer(Path dir, ServerApp app, boolean ownsDirectory) {
        this.dir = dir;
        this.app = app;
        this.ownsDirectory = ownsDirectory;
    }

    /** The same in a new temporary directory, deleted by {@link #close()} (the fuzz and soak commands). */
    public static LocalServer startInTemporaryDirectory(String prefix, Abi abi, Map<String, Map<String, String>> models,
                                                        Map<String, String> sidecars, Map<String, String> flags)
            throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        try {
            return start(dir, abi, models, sidecars, flags, true);
        } catch (RuntimeException e) {
            TemporaryDirectory.delete(dir);
            throw e;
        }
    }

    /**
     * @param models model id to the keys of its simulated model file (name, trace are filled in)
     * @param sidecars model id to the text of its model.yaml
     * @param flags configuration flags ({@code server.port} defaults to 0, any free port)
     */
    public static LocalServer start(Path dir, Abi abi, Map<String, Map<String, String>> models,
                                    Map<String, String> sidecars, Map<String, String> flags) {
        return start(dir, abi, models, Map.of(), sidecars, flags, false);
    }

    /**
     * The same with image encoders: {@code encoders} maps a model id to the keys of a simulated encoder file
     * ({@code #rknn-sim 1}; name and trace filled in), written beside the model's file, which makes it a vision
     * model.
     */
    public static LocalServer start(Path dir, Abi abi, Map<String, Map<String, String>> models,
                                    Map<String, Map<String, String>> encoders, Map<String, String> sidecars,
                                    Map<String, String> flags) {
        return start(dir, abi, models, encoders, sidecars, flags, false);
    }

    private static LocalServer start(Path dir, Abi abi, Map<String, Map<String, String>> models,
                                     Map<String, String> sidecars, Map<String, String> flags, boolean ownsDirectory) {
        return start(dir, abi, models, Map.of(), sidecars, flags, ownsDirectory);
    }

    private static LocalServer start(Path dir, Abi abi, Map<String, Map<String, String>> models,
                                     Map<String, Map<String, String>> encoders, Map<String, String> sidecars,
                                     Map<String, String> flags, boolean ownsDirectory) {
        try {
            Path modelsDir = Files.createDirectories(dir.resolve("models"));
            for (var m : models.entrySet()) {
                Path folder = Files.createDirectories(modelsDir.resolve(m.getKey()));
                Map<String, String> keys = new LinkedHashMap<>();
                keys.put("name", m.getKey());
                keys.put("trace", trace(dir, m.getKey()).toString());
                keys.putAll(m.getValue());
                StringBuilder text = new StringBuilder("#rkllm-sim 1\n");
                keys.forEach((k, v) -> text.append(k).append(": ").append(v).append('\n'));
                Files.writeString(folder.resolve(m.getKey() + ".rkllm"), text);
                if (encoders.containsKey(m.getKey())) {
                    Map<String, String> enc = new LinkedHashMap<>();
                    enc.put("name", m.getKey() + " vision");
                    enc.put("trace", encoderTrace(dir, m.getKey()).toString());
                    enc.putAll(encoders.get(m.getKey()));
                    StringBuilder encoder = new StringBuilder("#rknn-sim 1\n");
                    enc.forEach((k, v) -> encoder.append(k).append(": ").append(v).append('\n'));
                    Files.writeString(folder.resolve(m.getKey() + "_vision.rknn"), encoder);
                }
                if (sidecars.containsKey(m.getKey())) {
                    Files.writeString(folder.resolve("model.yaml"), sidecars.get(m.getKey()));
                }
            }
            Path library = SimulatedRuntime.extract(abi, dir.resolve("lib")).orElseThrow(() ->
                    new IllegalStateException("no simulated runtime for " + System.getProperty("os.arch")
                            + " in this build"));
            Map<String, String> all = new LinkedHashMap<>();
            all.put("server.port", "0");
            all.put("logging.access_log", "false");
            all.putAll(flags);
            all.put("models.dir", modelsDir.toString());
            all.put("runtime.library", library.toString());
            all.put("runtime.abi", abi.label());
            SimulatedRuntime.extractRknn(dir.resolve("lib"))
                    .ifPresent(rknn -> all.put("runtime.rknn_library", rknn.toString()));
            all.remove("runtime.simulate");
            ServerConfig config = new ConfigLoader(dir, EngineProviders.settings(EngineProviders.all())).load(Optional.empty(), Map.of(), all).config();
            EngineSetup setup = EngineSetup.of(config);
            List<EngineProvider> providers = EngineProviders.all();
            DiscoveryResult discovery = EngineProviders.discovery(providers, setup).discover(modelsDir);
            if (discovery.hasErrors()) {
                throw new IllegalStateException("model discovery failed: " + discovery.errors());
            }
            Engines engines = Engines.open(providers, setup, discovery.models()).requireFor(discovery.models());
            return new LocalServer(dir, ServerApp.start(config, engines, ServedModels.fixed(discovery.catalog())),
                    ownsDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path trace(Path dir, String model) {
        return dir.resolve(model + ".trace.jsonl");
    }

    private static Path encoderTrace(Path dir, String model) {
        return dir.resolve(model + ".encoder.trace.jsonl");
    }

    /** Every trace line of a model's simulated image encoder, in order. */
    public List<JsonNode> encoderTrace(String model) {
        return readTrace(encoderTrace(dir, model));
    }

    public int port() {
        return app.port();
    }

    public ServerApp app() {
        return app;
    }

    public Path traceFile(String model) {
        return trace(dir, model);
    }

    /** Every trace line of a model, in order. */
    public List<JsonNode> trace(String model) {
        return readTrace(traceFile(model));
    }

    /** Every line of a simulated runtime's trace file (a soak against a server elsewhere reads its file). */
    public static List<JsonNode> readTrace(Path file) {
        List<JsonNode> lines = new ArrayList<>();
        try {
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file)) {
                    if (!line.isBlank()) {
                        lines.add(JSON.readTree(line));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    @Override
    public void close() {
        app.stop(Duration.ofSeconds(10));
        if (ownsDirectory) {
            TemporaryDirectory.delete(dir);
        }
    }
}
