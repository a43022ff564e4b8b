package io.rkllm.ffm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The simulated runtime the build compiled, and simulated model files for tests. */
final class Sim {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Sim() {
    }

    static Path dir() {
        return Path.of(System.getProperty("rkllm.sim.dir", "target/sim"));
    }

    static Path library(Abi abi) {
        return dir().resolve("librkllmrt-" + abi.label() + ".so");
    }

    static RkllmRuntime runtime(Abi abi) {
        return RkllmRuntime.open(library(abi), java.util.Optional.of(abi));
    }

    /** A simulated model at zero delay with a trace file next to it; {@code extra} overrides keys. */
    static Path model(Path dir, String name, Map<String, String> extra) {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("name", name);
        keys.put("time_scale", "0");
        keys.put("trace", dir.resolve(name + ".trace.jsonl").toString());
        keys.putAll(extra);
        StringBuilder text = new StringBuilder("#rkllm-sim 1\n");
        keys.forEach((k, v) -> text.append(k).append(": ").append(v).append('\n'));
        Path file = dir.resolve(name + ".rkllm");
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    static List<JsonNode> trace(Path modelFile) {
        Path trace = modelFile.resolveSibling(modelFile.getFileName().toString().replace(".rkllm", ".trace.jsonl"));
        List<JsonNode> lines = new ArrayList<>();
        try {
            if (Files.exists(trace)) {
                for (String line : Files.readAllLines(trace)) {
                    lines.add(JSON.readTree(line));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    static List<JsonNode> calls(Path modelFile, String call) {
        return trace(modelFile).stream().filter(n -> n.path("call").asText().equals(call)).toList();
    }

    static ModelParams params(RkllmRuntime runtime, Path model, int context) {
        return runtime.defaultParams().withModelPath(model).withMaxContextLen(context).withMaxNewTokens(-1);
    }

    /** Collects a run's text and terminal event. */
    static final class Collector implements java.util.function.Consumer<TokenEvent> {
        final StringBuilder text = new StringBuilder();
        final List<TokenEvent> events = new ArrayList<>();

        @Override
        public void accept(TokenEvent event) {
            events.add(event);
            if (event instanceof TokenEvent.Text t) {
                text.append(t.text());
            }
        }

        String text() {
            return text.toString();
        }
    }
}
