package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.backend.llama.LlamaOpening;
import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code bench llama [--gguf FILE | --layers N --width N --heads N --kv-heads N --ff N --type f16|f32]
 * [--prompt-tokens N] [--tokens N] [--runs N] [--parallel-runs N] [--parallel-prompt-tokens N] [--json FILE]
 * [config flags]}: the
 * llama.cpp engine through the server against the library alone ({@link LlamaBench}), on a GGUF file or on a
 * random-weight model written for the run ({@link BenchModel}) into a temporary models directory, removed
 * afterwards. Unless the flags say otherwise, the configuration's conversations at once ({@code
 * engines.llama.parallel}, 4 by default) sharing a KV cache of 2,048 tokens ({@code engines.llama.context}: the
 * library alone allocates the same KV cache again beside the server's, which a model's whole training context would
 * make too big on a board).
 */
final class LlamaBenchCommand {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String GENERATED_ID = "bench-llama";

    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;

    LlamaBenchCommand(Map<String, String> environment, PrintStream out, PrintStream err) {
        this.environment = environment;
        this.out = out;
        this.err = err;
    }

    int run(CommandLine line, ConfigLoader loader) {
        Map<String, String> options = new LinkedHashMap<>(line.commandOptions());
        Optional<Path> gguf = Optional.ofNullable(options.remove("gguf")).map(Path::of);
        BenchModel shape = BenchModel.from(options);
        LlamaBench.Plan plan = new LlamaBench.Plan(BenchModel.number(options, "prompt-tokens", 128),
                BenchModel.number(options, "tokens", 64), BenchModel.number(options, "runs", 10),
                BenchModel.number(options, "parallel-runs", 3), BenchModel.number(options, "parallel-prompt-tokens", 32),
                LlamaBench.Plan.SETTLE);
        Optional<Path> json = Optional.ofNullable(options.remove("json")).map(Path::of);
        if (!options.isEmpty()) {
            throw new ConfigException("--" + options.keySet().iterator().next() + ": unknown option for bench llama");
        }
        if (gguf.isPresent() && (!Files.isRegularFile(gguf.get())
                || !gguf.get().getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".gguf"))) {
            throw new ConfigException("--gguf: not a .gguf file: " + gguf.get());
        }
        Path work = null;
        Thread cleanUp = null;
        try {
            work = Files.createTempDirectory("rkllm-bench-llama");
            // Ctrl-C during a run of minutes would otherwise leave the written model (hundreds of MB) in /tmp
            Path written = work;
            cleanUp = Thread.ofPlatform().unstarted(() -> delete(written));
            Runtime.getRuntime().addShutdownHook(cleanUp);
            String description;
            Path models = work.resolve("models");
            if (gguf.isPresent()) {
                Path file = gguf.get().toAbsolutePath();
                BenchModels.link(models, file);
                description = "GGUF file " + file;
            } else {
                Path folder = Files.createDirectories(models.resolve(GENERATED_ID));
                out.println("bench: writing a " + shape.describe() + " model");
                shape.write(folder.resolve(GENERATED_ID + ".gguf"));
                description = shape.describe();
            }
            Map<String, String> flags = BenchModels.flags(line.configFlags(), models);
            flags.putIfAbsent("engines.llama.context", "2048");
            ServerConfig config = loader.load(Optional.empty(), environment, flags).config();
            LlamaOpening engine = LlamaOpening.open(config.engines().llama());
            if (engine.runtime().isEmpty()) {
                err.println("rkllm-server bench llama: " + engine.summary());
                return 1;
            }
            out.println("bench: " + engine.summary());
            LlamaBench.Result result = new LlamaBench(engine.runtime().get(), config, description, plan, out).run();
            ObjectNode report = LlamaBenchReport.json(result);
            out.println();
            out.println(LlamaBenchReport.markdown(result));
            String text = JSON.writeValueAsString(report);
            if (json.isPresent()) {
                Files.writeString(json.get(), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report) + "\n");
                out.println("JSON written to " + json.get());
            }
            out.println(text);
            return 0;
        } catch (IOException e) {
            err.println("rkllm-server bench llama: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            if (cleanUp != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(cleanUp);
                } catch (IllegalStateException e) {
                    // the JVM is already shutting down: the hook removes the directory
                }
            }
            if (work != null) {
                delete(work);
            }
        }
    }

    private void delete(Path dir) {
        try {
            BenchModels.delete(dir);
        } catch (IOException e) {
            err.println("rkllm-server bench llama: could not remove " + dir + ": " + e.getMessage());
        }
    }
}
