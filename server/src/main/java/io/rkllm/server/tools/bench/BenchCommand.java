package io.rkllm.server.tools.bench;

import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.server.app.RuntimeLoader;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.models.ModelDiscovery;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The {@code bench} command: replays a workload against a server and prints the figures as Markdown. */
public final class BenchCommand {
    private static final int OK = 0;
    private static final int FAILED = 1;

    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;

    public BenchCommand(Map<String, String> environment, PrintStream out, PrintStream err) {
        this.environment = environment;
        this.out = out;
        this.err = err;
    }

    /**
     * {@code bench conversations [--url URL] [--model ID] [config flags]}: replays an Open WebUI
     * session; {@code bench embeddings [--url URL] [--model ID] [--chat-model ID] [--chunks N]
     * [--chunk-chars N] [config flags]}: a document upload as Open WebUI sends it, with a chat in the middle.
     * Without --url against a server started here on the simulated runtime.
     */
    public int run(CommandLine line, ConfigLoader loader) {
        String kind = line.arguments().isEmpty() ? "" : line.arguments().getFirst();
        if (!kind.equals("conversations") && !kind.equals("embeddings")) {
            throw new ConfigException("bench needs a kind: bench conversations [--url URL] [--model ID], or bench "
                    + "embeddings [--url URL] [--model ID] [--chat-model ID] [--chunks N] [--chunk-chars N]");
        }
        boolean embeddings = kind.equals("embeddings");
        Map<String, String> options = new LinkedHashMap<>(line.commandOptions());
        String url = options.remove("url");
        String model = options.getOrDefault("model", embeddings ? "qwen3-embedding-0.6b-sim" : "qwen3-1.7b-sim");
        options.remove("model");
        String chatModel = embeddings ? options.getOrDefault("chat-model", "qwen3-1.7b-sim") : null;
        options.remove("chat-model");
        int chunks = embeddings ? count(options.remove("chunks"), 200, "--chunks") : 0;
        int chunkChars = embeddings ? count(options.remove("chunk-chars"), 1000, "--chunk-chars") : 0;
        if (!options.isEmpty()) {
            throw new ConfigException("--" + options.keySet().iterator().next() + ": unknown option for bench");
        }
        ServerApp app = null;
        Simulation simulation = null;
        try {
            if (url == null) {
                Map<String, String> flags = new LinkedHashMap<>(line.configFlags());
                flags.put("runtime.simulate", "true");
                flags.putIfAbsent("server.port", "0");
                flags.putIfAbsent("logging.access_log", "false");
                ConfigLoader.Loaded loaded = loader.load(Optional.empty(), environment, flags);
                simulation = Simulation.inTempDirectory();
                RkllmRuntime runtime = RuntimeLoader.open(loaded.config().runtime(), Optional.of(simulation),
                        environment);
                app = ServerApp.start(loaded.config(), runtime, new ModelDiscovery().discover(simulation.models()).catalog());
                url = "http://127.0.0.1:" + app.port();
                out.println("bench: server on the simulated runtime at " + url + " with " + line.configFlags());
            }
            if (embeddings) {
                var bench = new EmbeddingBench(URI.create(url), model, chatModel, chunks, chunkChars, out);
                var result = bench.run();
                out.println();
                out.println(EmbeddingBench.markdown(chunks + " chunks of " + chunkChars + " characters, " + model
                        + " and " + chatModel + " " + line.configFlags(), result));
                return result.failed() == 0 ? OK : FAILED;
            }
            var bench = new ConversationBench(URI.create(url), model, out);
            var result = bench.run();
            out.println();
            out.println(ConversationBench.markdown(
                    "cache " + line.configFlags(), result));
            return OK;
        } catch (IOException e) {
            err.println("rkllm-server bench: " + e.getMessage());
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return FAILED;
        } finally {
            if (app != null) {
                app.stop(Duration.ofSeconds(5));
            }
            if (simulation != null) {
                simulation.close();
            }
        }
    }

    private static int count(String value, int otherwise, String option) {
        if (value == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 2) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException(option + ": expected a whole number of at least 2, got '" + value + "'");
    }
}
