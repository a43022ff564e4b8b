package io.rkllm.tools.bench;

import java.io.UncheckedIOException;
import java.time.Duration;
import io.rkllm.llama.gguf.TensorType;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.app.Engines;
import io.rkllm.server.app.ServedModels;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.backend.llama.LlamaOpening;
import io.rkllm.server.backend.llama.LlamaProvider;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.pipeline.SlotCount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A server started here whose one model is a GGUF model served by llama.cpp, for the conversation benches ({@code
 * bench conversations --gguf FILE}, {@code bench long-chat --gguf FILE}): a file given, or with {@code --gguf tiny}
 * the tests' tiny random-weight model ({@link TinyLlama}, with a 4,096-token context as the simulated models have),
 * written to a temporary models directory and removed with it. What these benches measure of a GGUF model is what
 * its cache reuses; the tiny model's answers are nonsense but its tokens are real, and it answers in milliseconds.
 *
 * @param model the model's id
 */
record GgufBenchServer(ServerApp app, String model, String description, Path work) implements AutoCloseable {
    static final String TINY = "tiny";
    static final String TINY_ID = "tiny-gguf";

    /** Starts it; the configuration flags apply (engines.llama.*), the models directory is the bench's. */
    static GgufBenchServer start(String gguf, ConfigLoader loader, Map<String, String> environment,
                                 Map<String, String> configFlags) throws IOException {
        Path work = Files.createTempDirectory("rkllm-bench-gguf");
        try {
            Path models = work.resolve("models");
            String id;
            String description;
            if (gguf.equals(TINY)) {
                id = TINY_ID;
                Path folder = Files.createDirectories(models.resolve(id));
                TinyLlama.write(folder.resolve(id + ".gguf"), new TinyLlama.Options(42, 64, 2, 4, 2, 192, 4096, 200,
                        TensorType.F32, false, 2));
                // greedy: the same answers every run, so that what a follow-up reuses is the same too (sampled, an
                // answer can hold a control token the client never sees, and the cache is cut before it)
                Files.writeString(folder.resolve("model.yaml"), "temperature: 0\n");
                description = "the tests' tiny random-weight GGUF model (4,096-token context, greedy)";
            } else {
                Path file = Path.of(gguf).toAbsolutePath();
                String name = file.getFileName().toString();
                if (!Files.isRegularFile(file) || !name.toLowerCase(Locale.ROOT).endsWith(".gguf")) {
                    throw new ConfigException("--gguf: not a .gguf file (or 'tiny'): " + gguf);
                }
                id = BenchModels.link(models, file);
                description = "GGUF file " + file;
            }
            ServerConfig config = loader.load(Optional.empty(), environment, BenchModels.flags(configFlags, models))
                    .config();
            LlamaOpening engine = LlamaOpening.open(config.engines().llama());
            if (engine.runtime().isEmpty()) {
                throw new IOException(engine.summary());
            }
            // llama.cpp alone: what is measured is its library, as the server drives it
            List<EngineProvider> llama = List.of(new LlamaProvider());
            ServerApp app = ServerApp.start(config, Engines.only(llama.getFirst(),
                    engine.backend(config.engines().llama(),
                    SlotCount.systemMemory(Path.of("/proc/meminfo")))), ServedModels.fixed(EngineProviders.discovery(llama,
                    new EngineSetup(config, Map.of(), Optional.empty(), SlotCount.systemMemory(Path.of("/proc/meminfo"))))
                    .discover(models).catalog()));
            return new GgufBenchServer(app, id, description + ", " + engine.summary(), work);
        } catch (IOException | RuntimeException e) {
            delete(work);
            throw e;
        }
    }

    String url() {
        return "http://127.0.0.1:" + app.port();
    }

    @Override
    public void close() {
        app.stop(Duration.ofSeconds(5));
        delete(work);
    }

    private static void delete(Path dir) {
        try {
            BenchModels.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not remove " + dir, e);
        }
    }
}
