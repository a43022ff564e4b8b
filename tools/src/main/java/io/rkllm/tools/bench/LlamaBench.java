package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.backend.llama.LlamaSettings;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.llama.LlamaRuntime;
import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.app.Engines;
import io.rkllm.server.app.ServedModels;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.backend.llama.LlamaBackend;
import io.rkllm.server.backend.llama.LlamaOpening;
import io.rkllm.server.backend.llama.LlamaProvider;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelHeader;
import io.rkllm.server.pipeline.SlotCount;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The llama.cpp engine's speed through the server against the library alone, and continuous batching's gain.
 *
 * <p>The one GGUF model of {@code models.dir} is opened twice in this process over the same library: once by the
 * binding alone ({@link LibraryRun}, with the backend's own model and context parameters), once by a server started
 * here (real HTTP on an ephemeral port, the configured {@code engines.llama.*}). Each round gives both the same
 * prompt (a user message the model's chat template renders to {@code promptTokens} tokens, new every round so that
 * nothing but the template's first tokens comes from the server's cache) and decodes greedily up to
 * {@code maxTokens} tokens: first the library, then a streamed chat completion. The server's figures are taken two
 * ways: its own {@code timings} (the engine's clock: admission to first token, first token to last) and the
 * client's clock (request sent to first streamed text, first to last streamed text), which is what a user gets and
 * what the overhead is computed from.
 *
 * <p>Then 1, 2, ... {@code engines.llama.parallel} chats are sent at once, each with its own short prompt, and their
 * aggregate decode rate is taken on the client: all tokens after each chat's first over the time from the first
 * chat's first token to the last chat's last.
 */
public final class LlamaBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FILLER = "The board has four big cores and four little cores, and the server runs"
            + " the model on them. Tell me how the tokenizer splits the text into tokens and how the model reads"
            + " them one by one, then writes the next one; say what the cache keeps between two turns of a chat,"
            + " and why a long answer at a few tokens a second takes a while.";

    /**
     * What to run.
     *
     * @param promptTokens the prompt of the single-chat rounds, in tokens (chat template included)
     * @param maxTokens tokens to generate per chat
     * @param runs rounds of the single chat, library and server one after the other (the tables give medians)
     * @param parallelRuns runs of each number of parallel chats
     * @param parallelPromptTokens the prompt of each parallel chat (short: decode is what is measured)
     * @param settle a pause after each measurement, so that one side's idle ggml threads have stopped spinning
     *     (OpenMP spins a while before it sleeps) when the other side computes
     */
    public record Plan(int promptTokens, int maxTokens, int runs, int parallelRuns, int parallelPromptTokens,
                       Duration settle) {
        /** What {@code bench llama} runs unless told otherwise. */
        public static final Duration SETTLE = Duration.ofMillis(300);

        public Plan {
            if (promptTokens < 8 || maxTokens < 2 || runs < 1 || parallelRuns < 1 || parallelPromptTokens < 8) {
                throw new IllegalArgumentException("prompts of at least 8 tokens, at least 2 tokens to generate and"
                        + " one run");
            }
        }
    }

    /** What was measured on, as the report says it. */
    public record Setup(String modelId, String file, String description, long parameters, String quantisation,
                        long fileBytes, String library, int threads, int parallel, int contextLength,
                        int contextCells, int batchSize, Plan plan) {
    }

    /**
     * One single-chat round.
     *
     * @param libraryPromptTokens the prompt as the library alone tokenized it
     * @param serverPromptTokens the prompt as the server counted it ({@code usage.prompt_tokens})
     * @param server the server's own timings ({@code timings.prompt_n}, {@code prompt_ms}, {@code predicted_*})
     * @param client the client's clock (the server's prefilled tokens over the time to the first streamed text)
     * @param cpu the CPU time both sides spent
     */
    public record Round(int libraryPromptTokens, int serverPromptTokens, Timing library, Timing server,
                        Timing client, Cpu cpu) {
    }

    /**
     * CPU time of one round, in ms (NaN where the JVM does not say).
     *
     * @param library the library alone's thread
     * @param decodeThread the server's decode loop thread during its request
     * @param restOfProcess every other thread of the process during the server's request: the server's HTTP,
     *     pipeline and worker threads, the bench's own HTTP client, the JIT and the GC (at the process clock's
     *     resolution, 10 ms on Linux: 0 for a request shorter than that)
     */
    public record Cpu(double library, double decodeThread, double restOfProcess) {
    }

    /** One run of {@code chats} chats at once: their tokens after the first, over the span of their decoding. */
    public record ParallelRun(int chats, List<Timing> server, List<Timing> client, double spanMs) {
        double aggregatePerSecond() {
            int tokens = client.stream().mapToInt(t -> Math.max(0, t.generated() - 1)).sum();
            return spanMs <= 0 ? Double.NaN : tokens * 1000 / spanMs;
        }
    }

    public record Result(Setup setup, List<Round> rounds, List<ParallelRun> parallel) {
    }

    private final LlamaRuntime runtime;
    private final ServerConfig config;
    private final String description;
    private final Plan plan;
    private final PrintStream out;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /**
     * @param config the server's configuration; its {@code models.dir} holds the one GGUF model to run
     * @param description the model as the report describes it (its dimensions when the bench wrote it)
     */
    public LlamaBench(LlamaRuntime runtime, ServerConfig config, String description, Plan plan, PrintStream out) {
        this.runtime = runtime;
        this.config = config;
        this.description = description;
        this.plan = plan;
        this.out = out;
    }

    public Result run() throws IOException, InterruptedException {
        DiscoveryResult discovery = EngineProviders.discovery(List.of(new LlamaProvider()), new EngineSetup(config,
                Map.of(), Optional.empty(), SlotCount.systemMemory(Path.of("/proc/meminfo"))))
                .discover(config.models().dir());
        List<ModelDescriptor> models = discovery.models();
        if (models.size() != 1) {
            throw new IOException("bench llama needs exactly one GGUF model in " + config.models().dir() + ", found "
                    + models.size() + (discovery.errors().isEmpty() ? "" : ": " + discovery.errors()));
        }
        ModelDescriptor model = models.getFirst();
        ModelHeader header = model.facts().header().orElseThrow();
        LlamaSettings settings = LlamaOpening.settings(config.engines().llama(),
                io.rkllm.server.pipeline.SlotCount.systemMemory(java.nio.file.Path.of("/proc/meminfo")));
        int context = model.contextLength();
        if (plan.promptTokens() + plan.maxTokens() + 16 > context) {
            throw new IOException("a prompt of " + plan.promptTokens() + " tokens and " + plan.maxTokens()
                    + " more do not fit the model's context of " + context + " tokens");
        }
        out.println("bench: " + model.id() + " (" + description + "), " + settings.threads() + " threads, "
                + settings.parallel() + " conversations at once, context " + context + " per conversation");
        try (LibraryRun library = new LibraryRun(runtime, model.file(), settings, context)) {
            Setup setup = new Setup(model.id(), model.file().toString(), description,
                    header.parameterCount(), header.quantisation(), model.sizeBytes(),
                    runtime.info().library().path() + " (" + LlamaBackend.label(runtime.info()) + ")",
                    settings.threads(), settings.parallel(), context,
                    settings.chatContext(context).contextLength(), library.batchSize(), plan);
            ServerApp app = ServerApp.start(config, Engines.only(new LlamaProvider(), new LlamaBackend(runtime,
                    settings)), ServedModels.fixed(discovery.catalog()));
            try {
                URI base = URI.create("http://127.0.0.1:" + app.port());
                post(base, "/v1/models/" + model.id() + "/load");
                Prompts prompts = new Prompts(library);
                List<Round> rounds = single(base, model.id(), library, prompts);
                List<ParallelRun> parallel = parallel(base, model.id(), prompts, settings.parallel());
                return new Result(setup, rounds, parallel);
            } finally {
                app.stop(Duration.ofSeconds(5));
            }
        }
    }

    private List<Round> single(URI base, String id, LibraryRun library, Prompts prompts)
            throws IOException, InterruptedException {
        List<Round> rounds = new ArrayList<>();
        for (int r = 0; r <= plan.runs(); r++) {
            // round 0 warms both up (the JIT, the server's first request, the pages of the mapped file)
            // the round's number first: the prompt shares no more than the template's first tokens with the last one
            String content = prompts.content(r + ". Round " + r + ".", plan.promptTokens());
            int[] tokens = library.tokenize(prompts.rendered(content));
            // every other round the server goes first, so that neither side always follows the other
            Served served;
            Alone alone;
            if (r % 2 == 0) {
                served = serve(base, id, content);
                Thread.sleep(plan.settle());
                alone = alone(library, tokens);
            } else {
                alone = alone(library, tokens);
                Thread.sleep(plan.settle());
                served = serve(base, id, content);
            }
            Thread.sleep(plan.settle());
            StreamedChat chat = served.chat();
            // the process clock ticks coarser than a thread's (10 ms from /proc on Linux): over a short request it can
            // read less than the decode thread alone, which is the clock's resolution, not negative work
            Cpu cpu = new Cpu(alone.cpuMs(), served.decodeCpuMs(),
                    Math.max(0, served.processCpuMs() - served.decodeCpuMs()));
            Round round = new Round(tokens.length, chat.usage().at("/usage/prompt_tokens").asInt(), alone.timing(),
                    serverTiming(chat.usage()), clientTiming(chat), cpu);
            out.printf(Locale.ROOT, "%s  prompt %d/%d tokens  library %.1f/%.2f  server timings %.1f/%.2f"
                            + "  client %.1f/%.2f  (prefill/decode tokens/s, %d/%d tokens)  CPU ms: library %.0f,"
                            + " decode thread %.0f, rest of the process %.0f%n",
                    r == 0 ? "warm-up " : "round " + r, round.libraryPromptTokens(), round.serverPromptTokens(),
                    round.library().prefillPerSecond(), round.library().decodePerSecond(),
                    round.server().prefillPerSecond(),
                    round.server().decodePerSecond(), round.client().prefillPerSecond(),
                    round.client().decodePerSecond(), round.library().generated(), round.server().generated(), cpu.library(),
                    cpu.decodeThread(), cpu.restOfProcess());
            if (r > 0) {
                rounds.add(round);
            }
        }
        return rounds;
    }

    /** A streamed chat and the CPU time the process and its decode thread spent while it ran, in ms. */
    private record Served(StreamedChat chat, double processCpuMs, double decodeCpuMs) {
    }

    /** The library alone's run and its thread's CPU time, in ms. */
    private record Alone(Timing timing, double cpuMs) {
    }

    private Served serve(URI base, String id, String content) throws IOException, InterruptedException {
        String decodeThread = "llama-decode-" + id;
        long process = CpuClock.process();
        long decode = CpuClock.thread(decodeThread);
        StreamedChat chat = StreamedChat.send(http, base, request(id, content));
        return new Served(chat, cpuMs(process, CpuClock.process()), cpuMs(decode, CpuClock.thread(decodeThread)));
    }

    private Alone alone(LibraryRun library, int[] tokens) {
        long cpu = CpuClock.currentThread();
        Timing timing = library.run(tokens, plan.maxTokens());
        return new Alone(timing, cpuMs(cpu, CpuClock.currentThread()));
    }

    private static double cpuMs(long before, long after) {
        return before < 0 || after < 0 ? Double.NaN : (after - before) / 1e6;
    }

    private List<ParallelRun> parallel(URI base, String id, Prompts prompts, int most)
            throws IOException, InterruptedException {
        List<ParallelRun> runs = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int chats = 1; chats <= most; chats++) {
                for (int r = 1; r <= plan.parallelRuns(); r++) {
                    List<Future<StreamedChat>> sent = new ArrayList<>();
                    for (int c = 1; c <= chats; c++) {
                        ObjectNode body = request(id, prompts.content(c + ". Chat " + c + " of " + chats
                                + ", run " + r + ".", plan.parallelPromptTokens()));
                        sent.add(clients.submit(() -> StreamedChat.send(http, base, body)));
                    }
                    List<StreamedChat> answers = new ArrayList<>();
                    for (Future<StreamedChat> f : sent) {
                        answers.add(join(f));
                    }
                    long first = answers.stream().mapToLong(StreamedChat::firstTokenNanos).min().orElseThrow();
                    long last = answers.stream().mapToLong(StreamedChat::lastTokenNanos).max().orElseThrow();
                    ParallelRun run = new ParallelRun(chats, answers.stream().map(a -> serverTiming(a.usage()))
                            .toList(), answers.stream().map(LlamaBench::clientTiming).toList(), (last - first) / 1e6);
                    runs.add(run);
                    out.printf(Locale.ROOT, "%d at once, run %d: %.2f tokens/s together%n", chats, r,
                            run.aggregatePerSecond());
                    Thread.sleep(plan.settle());
                }
            }
        }
        return runs;
    }

    private static StreamedChat join(Future<StreamedChat> future) throws IOException, InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getCause());
        }
    }

    private ObjectNode request(String id, String content) {
        ObjectNode body = JSON.createObjectNode().put("model", id).put("temperature", 0)
                .put("max_tokens", plan.maxTokens());
        body.putArray("messages").addObject().put("role", "user").put("content", content);
        return body;
    }

    static Timing serverTiming(JsonNode usage) {
        JsonNode t = usage.path("timings");
        return new Timing(t.path("prompt_n").asInt(), t.path("prompt_ms").asDouble(), t.path("predicted_n").asInt(),
                t.path("predicted_ms").asDouble());
    }

    static Timing clientTiming(StreamedChat chat) {
        return new Timing(chat.usage().at("/timings/prompt_n").asInt(),
                (chat.firstTokenNanos() - chat.sentNanos()) / 1e6, chat.usage().at("/usage/completion_tokens").asInt(),
                (chat.lastTokenNanos() - chat.firstTokenNanos()) / 1e6);
    }

    private void post(URI base, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(base.resolve(path))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(path + ": " + response.statusCode() + " " + response.body());
        }
    }

    /** User messages of a given length in tokens, as the model's template renders them and its tokenizer reads. */
    private static final class Prompts {
        private final LibraryRun library;
        private final UnaryOperator<String> template;

        Prompts(LibraryRun library) {
            this.library = library;
            this.template = LlamaBackend.userTurns(library.model()).orElse(UnaryOperator.identity());
        }

        /** The text the server decodes for a chat of one user message (its template; the text alone without). */
        String rendered(String content) {
            return template.apply(content);
        }

        /** {@code label} and as many words of the filler (repeated) as make {@code tokens} tokens or just more. */
        String content(String label, int tokens) {
            // the fewest words that reach the length, found in a few renderings (a template renders in milliseconds)
            int high = 1;
            while (length(label, high) < tokens) {
                high *= 2;
            }
            int low = high / 2;
            while (low + 1 < high) {
                int mid = (low + high) >>> 1;
                if (length(label, mid) < tokens) {
                    low = mid;
                } else {
                    high = mid;
                }
            }
            return text(label, high);
        }

        private int length(String label, int words) {
            return library.tokenize(rendered(text(label, words))).length;
        }

        private static String text(String label, int words) {
            String[] filler = FILLER.split(" ");
            StringBuilder text = new StringBuilder(label);
            for (int i = 0; i < words; i++) {
                text.append(' ').append(filler[i % filler.length]);
            }
            return text.toString();
        }
    }
}
