package io.rkllm.tools.bench;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
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
     * session; {@code bench long-chat [--url URL] [--model ID] [--turns N] [config flags]}: one chat that
     * outgrows the context; both with {@code --gguf FILE|tiny} against a GGUF model served by llama.cpp here;
     * {@code bench images [--url URL] [--model ID] [config flags]}: an Open WebUI picture chat,
     * without --url once per picture cache policy (resend, incremental, and no embedding cache);
     * {@code bench embeddings [--url URL] [--model ID] [--chat-model ID] [--chunks N] [--chunk-chars N]
     * [config flags]}: a document upload as Open WebUI sends it, with a chat in the middle. Without --url against a
     * server started here on the simulated runtime. {@code bench llama [--gguf FILE] [options] [config flags]}: a GGUF
     * model's speed through a server started here against llama.cpp's library alone ({@link LlamaBenchCommand}).
     * {@code bench output [--rounds N]}: what reading a long answer costs per token in each dialect ({@link OutputBench}).
     * {@code bench versus --other URL [--other-model ID] [--other-label NAME] (--url URL [--model ID] | --gguf FILE)
     * [--label NAME] [--rounds N] [--tokens N] [--prompt-words N] [config flags]}: one workload against this server
     * and another OpenAI-compatible one, side by side ({@link SideBySide}).
     */
    public int run(CommandLine line, ConfigLoader loader) {
        String kind = line.arguments().isEmpty() ? "" : line.arguments().getFirst();
        if (kind.equals("images")) {
            return images(line, loader);
        }
        if (kind.equals("llama")) {
            return new LlamaBenchCommand(environment, out, err).run(line, loader);
        }
        if (kind.equals("versus")) {
            return versus(line, loader);
        }
        if (kind.equals("output")) {
            return new OutputBench(out).run(count(line.commandOptions().get("rounds"), 21, "--rounds"));
        }
        if (!kind.equals("conversations") && !kind.equals("long-chat") && !kind.equals("embeddings")) {
            throw new ConfigException("bench needs a kind: bench conversations [--url URL] [--model ID] [--gguf FILE"
                    + "|tiny], bench long-chat [--url URL] [--model ID] [--turns N] [--gguf FILE|tiny],"
                    + " bench images [--url URL] [--model ID],"
                    + " bench embeddings [--url URL] [--model ID] [--chat-model ID] [--chunks N] [--chunk-chars N],"
                    + " bench llama [--gguf FILE] [--prompt-tokens N] [--tokens N] [--runs N] [--json FILE],"
                    + " bench versus --other URL (--url URL | --gguf FILE) [--rounds N] [--tokens N],"
                    + " or bench output [--rounds N]");
        }
        boolean longChat = kind.equals("long-chat");
        boolean embeddings = kind.equals("embeddings");
        Map<String, String> options = new LinkedHashMap<>(line.commandOptions());
        String url = options.remove("url");
        String model = options.getOrDefault("model", longChat ? "qwen2.5-0.5b-sim"
                : embeddings ? "qwen3-embedding-0.6b-sim" : "qwen3-1.7b-sim");
        options.remove("model");
        int turns = longChat ? turns(options.remove("turns")) : 0;
        String chatModel = embeddings ? options.getOrDefault("chat-model", "qwen3-1.7b-sim") : null;
        options.remove("chat-model");
        int chunks = embeddings ? count(options.remove("chunks"), 200, "--chunks") : 0;
        int chunkChars = embeddings ? count(options.remove("chunk-chars"), 1000, "--chunk-chars") : 0;
        String gguf = embeddings ? null : options.remove("gguf");
        if (gguf != null && url != null) {
            throw new ConfigException("--gguf starts a server here: it cannot be given with --url");
        }
        if (!options.isEmpty()) {
            throw new ConfigException("--" + options.keySet().iterator().next() + ": unknown option for bench");
        }
        if (gguf != null) {
            return gguf(gguf, longChat, turns, line, loader);
        }
        if (url != null) {
            String given = url;
            return reporting(() -> workload(kind, URI.create(given), model, chatModel, chunks, chunkChars, turns, line));
        }
        return reporting(() -> {
            try (SimulatedBenchServer server = SimulatedBenchServer.start(loader, environment, line.configFlags())) {
                out.println("bench: server on the simulated runtime at " + server.url() + " with "
                        + line.configFlags());
                return workload(kind, URI.create(server.url()), model, chatModel, chunks, chunkChars, turns, line);
            }
        });
    }

    /** One of the conversation, long-chat and embedding workloads against the server at {@code url}. */
    private int workload(String kind, URI url, String model, String chatModel, int chunks, int chunkChars, int turns,
                         CommandLine line) throws IOException, InterruptedException {
        if (kind.equals("embeddings")) {
            var result = new EmbeddingBench(url, model, chatModel, chunks, chunkChars, out).run();
            out.println();
            out.println(EmbeddingBench.markdown(chunks + " chunks of " + chunkChars + " characters, " + model
                    + " and " + chatModel + " " + line.configFlags(), result));
            return result.failed() == 0 ? OK : FAILED;
        }
        if (kind.equals("long-chat")) {
            var result = new LongChatBench(url, model, out).run(LongChatScript.generate(turns, LongChatScript.SEED));
            out.println();
            out.println(LongChatBench.markdown(model + ", " + turns + " turns, " + line.configFlags(), result));
        } else {
            var result = new ConversationBench(url, model, out).run();
            out.println();
            out.println(ConversationBench.markdown("cache " + line.configFlags(), result));
        }
        return OK;
    }

    /** What a bench's work may throw. */
    private interface Work {
        int run() throws IOException, InterruptedException;
    }

    /**
     * Runs {@code work}; a failure to reach or read a server is reported on the error stream, one line, whether it came
     * from a blocking request or from one sent asynchronously (wrapped in a {@link CompletionException}).
     */
    private int reporting(Work work) {
        try {
            return work.run();
        } catch (IOException e) {
            return failed(e);
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                return failed(io);
            }
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return FAILED;
        }
    }

    private int failed(IOException e) {
        String why = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
        err.println("rkllm-server bench: " + why + (e instanceof ConnectException ? " (is the server at that URL"
                + " running?)" : ""));
        return FAILED;
    }

    /**
     * The conversation benches against a GGUF model served by llama.cpp in a server started here (a file, or
     * {@code tiny}: {@link GgufBenchServer}). Its answers do not follow the script's directives: each is limited by
     * {@code max_tokens} instead (long-chat: the length the script asks for; conversations: {@value #GGUF_ANSWER}).
     */
    private int gguf(String gguf, boolean longChat, int turns, CommandLine line, ConfigLoader loader) {
        return reporting(() -> {
            try (GgufBenchServer server = GgufBenchServer.start(gguf, loader, environment, line.configFlags())) {
                out.println("bench: server at " + server.url() + " with " + server.description() + " "
                        + line.configFlags());
                URI url = URI.create(server.url());
                if (longChat) {
                    var result = new LongChatBench(url, server.model(), out, true).run(
                            LongChatScript.generate(turns, LongChatScript.SEED));
                    out.println();
                    out.println(LongChatBench.markdown(server.model() + ", " + turns + " turns, "
                            + line.configFlags(), result));
                } else {
                    var result = new ConversationBench(url, server.model(), out,
                            java.util.OptionalInt.of(GGUF_ANSWER)).run();
                    out.println();
                    out.println(ConversationBench.markdown(server.model() + " " + line.configFlags(), result));
                }
                return OK;
            }
        });
    }

    /**
     * {@code bench versus}: this server (at {@code --url}, or started here on {@code --gguf FILE} with the
     * configuration flags) against the one at {@code --other}, the same workload in turns ({@link SideBySide}).
     */
    private int versus(CommandLine line, ConfigLoader loader) {
        Map<String, String> options = new LinkedHashMap<>(line.commandOptions());
        String other = options.remove("other");
        String url = options.remove("url");
        String gguf = options.remove("gguf");
        if (other == null || (url == null) == (gguf == null)) {
            throw new ConfigException("bench versus needs --other URL (the server compared with) and either --url URL"
                    + " (this server, running) or --gguf FILE (this server, started here)");
        }
        String model = options.remove("model");
        String otherModel = options.remove("other-model");
        String label = options.getOrDefault("label", "rkllm-server");
        options.remove("label");
        String otherLabel = options.getOrDefault("other-label", "other");
        options.remove("other-label");
        SideBySide.Plan d = SideBySide.Plan.defaults();
        SideBySide.Plan plan = new SideBySide.Plan(BenchModel.number(options, "rounds", d.rounds()),
                BenchModel.number(options, "tokens", d.tokens()), BenchModel.number(options, "prompt-words",
                d.promptWords()));
        if (!options.isEmpty()) {
            throw new ConfigException("--" + options.keySet().iterator().next() + ": unknown option for bench versus");
        }
        return reporting(() -> {
            URI otherUrl = URI.create(other);
            SideBySide.Target them = new SideBySide.Target(otherLabel, otherUrl,
                    otherModel != null ? otherModel : firstModel(otherUrl));
            if (url != null) {
                URI ours = URI.create(url);
                return versus(them, new SideBySide.Target(label, ours, model != null ? model : firstModel(ours)),
                        plan, "this server at " + url);
            }
            try (GgufBenchServer server = GgufBenchServer.start(gguf, loader, environment, line.configFlags())) {
                return versus(them, new SideBySide.Target(label, URI.create(server.url()), server.model()), plan,
                        "this server started here with " + server.description() + " " + line.configFlags());
            }
        });
    }

    private int versus(SideBySide.Target them, SideBySide.Target ours, SideBySide.Plan plan, String what)
            throws IOException, InterruptedException {
        out.println("bench versus: " + them.label() + " at " + them.url() + " (model " + them.model() + ") and "
                + what + " (model " + ours.model() + ")");
        MachineLoad.measure(java.time.Duration.ofSeconds(1)).ifPresent(l -> out.println(MachineLoad.report(l.others())));
        SideBySide.Result result = new SideBySide(out).run(them, ours, plan);
        out.println();
        out.println(SideBySideTable.markdown("Greedy, at most " + plan.tokens() + " tokens an answer.", result));
        return OK;
    }

    /** The first model a server lists ({@code GET /v1/models}). */
    private static String firstModel(URI url) throws IOException, InterruptedException {
        // HTTP/1.1: the JDK's default asks an http:// server to upgrade to HTTP/2, which llama-server's HTTP library
        // answers by closing the connection
        var http = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build();
        var response = http.send(java.net.http.HttpRequest.newBuilder(url.resolve("/v1/models")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        var data = new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body()).path("data");
        if (response.statusCode() != 200 || data.isEmpty()) {
            throw new IOException(url + " lists no model (GET /v1/models answered " + response.statusCode()
                    + "): name one with --model / --other-model");
        }
        return data.get(0).path("id").asText();
    }

    /** The answers' limit of {@code bench conversations --gguf}: about what the simulated model answers. */
    static final int GGUF_ANSWER = 64;

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

    private int images(CommandLine line, ConfigLoader loader) {
        Map<String, String> options = new LinkedHashMap<>(line.commandOptions());
        String url = options.remove("url");
        String model = options.getOrDefault("model", "qwen3-vl-2b-sim");
        options.remove("model");
        if (!options.isEmpty()) {
            throw new ConfigException("--" + options.keySet().iterator().next() + ": unknown option for bench");
        }
        if (url != null) {
            String given = url;
            return reporting(() -> {
                List<ImageBench.Turn> turns = new ImageBench(URI.create(given), model, out).run(196);
                out.println();
                out.println(ImageBench.markdown(given, turns));
                return OK;
            });
        }
        Map<String, Map<String, String>> policies = new LinkedHashMap<>();
        policies.put("vision.cache_policy=resend (default)", Map.of("vision.cache_policy", "resend"));
        policies.put("vision.cache_policy=incremental", Map.of("vision.cache_policy", "incremental"));
        policies.put("vision.cache_mb=0 (no embedding cache)", Map.of("vision.cache_mb", "0"));
        return reporting(() -> {
            StringBuilder tables = new StringBuilder();
            for (var policy : policies.entrySet()) {
                Map<String, String> flags = new LinkedHashMap<>(line.configFlags());
                flags.putAll(policy.getValue());
                try (SimulatedBenchServer server = SimulatedBenchServer.start(loader, environment, flags)) {
                    out.println("bench: " + policy.getKey());
                    List<ImageBench.Turn> turns = new ImageBench(URI.create(server.url()), model, out).run(196);
                    tables.append(ImageBench.markdown(policy.getKey(), turns)).append('\n');
                }
            }
            out.println();
            out.print(tables);
            return OK;
        });
    }

    private static int turns(String value) {
        if (value == null) {
            return 40;
        }
        try {
            int turns = Integer.parseInt(value);
            if (turns >= 1 && turns <= 1000) {
                return turns;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException("--turns: a number from 1 to 1000, got '" + value + "'");
    }
}
