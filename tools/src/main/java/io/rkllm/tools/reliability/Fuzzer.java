package io.rkllm.tools.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.harness.RawHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends {@link FuzzCases} to a server and checks every answer: a 4xx with an OpenAI-shaped JSON
 * error, or a 2xx that is a complete, well-formed answer (JSON, or an SSE stream ending in
 * {@code [DONE]} without an error event; the Anthropic and Responses streams ending with their last event); never a
 * 5xx, never silence beyond the per-request timeout. One error
 * may end a stream that started well: a request for JSON or a tool call whose answer failed the check twice
 * ({@code invalid_output}, documented in api.md: the content is held until it is checked, after the 200).
 * Then the server must still be healthy, with an empty queue, and answer a normal request.
 */
public final class Fuzzer {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What to run. {@code apiKey} is sent on most requests when the server needs one. */
    public record Options(String host, int port, long seed, int cases, int firstCase, Duration timeout, int concurrency,
                          List<String> models, String apiKey, int hugeBytes) {
    }

    /** A request whose answer broke the contract. */
    public record Failure(int index, String category, String description, String problem, String request) {
        @Override
        public String toString() {
            return "case " + index + " [" + category + ": " + description + "]: " + problem + "\n    request: " + request;
        }
    }

    /** The outcome of a run. */
    public record Result(int cases, Map<Integer, Integer> statuses, Map<String, Integer> categories,
                         List<Failure> failures, long millis, boolean healthyAfter, String afterProblem) {
        public boolean passed() {
            return failures.isEmpty() && healthyAfter;
        }

        public String summary() {
            StringBuilder s = new StringBuilder();
            s.append(cases).append(" cases in ").append(millis).append(" ms; statuses ").append(statuses)
                    .append("; categories ").append(categories).append("; failures ").append(failures.size())
                    .append("; healthy afterwards: ").append(healthyAfter ? "yes" : "NO (" + afterProblem + ")");
            return s.toString();
        }
    }

    private final Options options;

    public Fuzzer(Options options) {
        this.options = options;
    }

    public Result run() throws InterruptedException {
        FuzzCases generator = new FuzzCases(options.seed(), options.models(), options.apiKey(), options.hugeBytes());
        Map<Integer, Integer> statuses = Collections.synchronizedMap(new TreeMap<>());
        Map<String, Integer> categories = Collections.synchronizedMap(new TreeMap<>());
        List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        AtomicInteger next = new AtomicInteger(options.firstCase());
        int end = options.firstCase() + options.cases();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < Math.max(1, options.concurrency()); w++) {
                workers.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < end; i = next.getAndIncrement()) {
                        FuzzCases.Case c = generator.generate(i);
                        categories.merge(c.category(), 1, Integer::sum);
                        String problem;
                        int status = -1;
                        try {
                            RawHttp.Response response = exchange(c);
                            status = response.status();
                            problem = check(c, response);
                            if (problem != null && options.concurrency() > 1 && displaced(response)) {
                                problem = null; // another case unloaded the model meanwhile: by design
                            }
                        } catch (IOException e) {
                            problem = "no complete answer: " + e;
                        }
                        statuses.merge(status, 1, Integer::sum);
                        if (problem != null) {
                            failures.add(new Failure(c.index(), c.category(), c.description(), problem,
                                    AnswerShapes.abbreviate(c.bytes())));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
            }
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        String after = afterwards();
        List<Failure> sorted = new ArrayList<>(failures);
        sorted.sort(Comparator.comparingInt(Failure::index));
        return new Result(options.cases(), Map.copyOf(statuses), Map.copyOf(categories), List.copyOf(sorted), millis,
                after == null, after);
    }

    private RawHttp.Response exchange(FuzzCases.Case c) throws IOException {
        return RawHttp.exchange(options.host(), options.port(), c.bytes(), options.timeout(), c.head());
    }

    /**
     * A 503 with Retry-After because the model was unloaded (a concurrent case called /unload) while this
     * request waited for it: the documented answer, possible only when cases run concurrently.
     */
    static boolean displaced(RawHttp.Response response) {
        String body = response.text();
        boolean unloaded = body.contains("\"model_unloaded\"") || body.contains("\"model_unloading\"")
                // Ollama's and Anthropic's shapes carry the message only
                || body.contains("was unloaded before the request could run") || body.contains("is being unloaded");
        if (response.status() == 200) {
            return unloaded; // the same, after a stream had started (its error event)
        }
        return response.status() == 503 && response.header("retry-after") != null && unloaded;
    }

    /** Null when the answer keeps the contract, else what is wrong with it. */
    static String check(FuzzCases.Case c, RawHttp.Response response) {
        int status = response.status();
        String body = response.text();
        String type = response.header("content-type");
        if (status == 505 && c.category().equals("http")) {
            return null; // HTTP's own answer to a request line claiming another HTTP version (Jetty's parser)
        }
        if (status >= 500) {
            return "server error " + status + ": " + AnswerShapes.abbreviate(response.body());
        }
        AnswerShapes.Api api = AnswerShapes.Api.of(c.path());
        if (status >= 400) {
            if (c.head()) {
                return null;
            }
            if (type == null || !type.startsWith("application/json")) {
                return status + " with Content-Type " + type + ": " + AnswerShapes.abbreviate(response.body());
            }
            return switch (api) {
                case OLLAMA -> AnswerShapes.ollamaError(body);
                case ANTHROPIC -> AnswerShapes.anthropicError(body);
                case OPENAI -> AnswerShapes.openAiError(body);
                case ANY -> AnswerShapes.openAiError(body) == null || AnswerShapes.ollamaError(body) == null || AnswerShapes.anthropicError(body) == null
                        ? null : AnswerShapes.openAiError(body);
            };
        }
        if (status >= 300 || status < 200) {
            return "unexpected status " + status;
        }
        if (c.head() || status == 204) {
            return null;
        }
        if (type != null && type.startsWith("text/event-stream")) {
            String route = c.path().contains("?") ? c.path().substring(0, c.path().indexOf('?')) : c.path();
            return api == AnswerShapes.Api.ANTHROPIC ? AnswerShapes.anthropicSse(body)
                    : route.equals("/v1/responses") || route.equals("/responses") ? AnswerShapes.responsesSse(body) : AnswerShapes.sse(body);
        }
        if (type != null && type.startsWith("application/x-ndjson")) {
            return AnswerShapes.ndjson(body);
        }
        if (c.path().startsWith("/metrics") && type != null && type.startsWith("text/plain")) {
            return null; // Prometheus' text exposition
        }
        if (c.path().replaceFirst("[?#].*", "").equals("/") && type != null && type.startsWith("text/plain")) {
            return body.equals("Ollama is running") ? null : "GET / answered " + AnswerShapes.abbreviate(response.body());
        }
        if (type == null || !type.startsWith("application/json")) {
            return status + " with Content-Type " + type;
        }
        try {
            JsonNode node = JSON.readTree(body);
            if (node == null || !node.isObject()) {
                return "a 2xx body that is not a JSON object";
            }
            // "error": null is part of a Responses API response object
            if (node.hasNonNull("error")) {
                return "an error inside a 2xx: " + AnswerShapes.abbreviate(response.body());
            }
            return null;
        } catch (IOException e) {
            return "a 2xx body that is not JSON: " + AnswerShapes.abbreviate(response.body());
        }
    }

    /** Null when the server is healthy, idle and answers a normal request. */
    private String afterwards() {
        try {
            Duration t = Duration.ofSeconds(30);
            Map<String, String> auth = options.apiKey() == null ? Map.of()
                    : Map.of("Authorization", "Bearer " + options.apiKey());
            long until = System.nanoTime() + t.toNanos();
            JsonNode health;
            while (true) {
                RawHttp.Response h = RawHttp.exchange(options.host(), options.port(),
                        RawHttp.request("GET", "/health", auth, null), t);
                if (h.status() != 200) {
                    return "/health answered " + h.status();
                }
                health = JSON.readTree(h.body());
                boolean idle = true;
                for (JsonNode m : health.path("loaded_models")) {
                    idle &= m.path("queued").asInt() == 0 && !m.path("busy").asBoolean();
                }
                if (idle) {
                    break;
                }
                if (System.nanoTime() > until) {
                    return "work is still queued or running: " + health;
                }
                Thread.sleep(50);
            }
            String model = options.models().isEmpty() ? "" : options.models().getFirst();
            Map<String, String> headers = new LinkedHashMap<>(auth);
            headers.put("Content-Type", "application/json");
            RawHttp.Response chat = RawHttp.exchange(options.host(), options.port(), RawHttp.request("POST",
                    "/v1/chat/completions", headers, ("{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\","
                            + "\"content\":\"[[say:still here]]\"}],\"reasoning_effort\":\"none\"}")
                            .getBytes(StandardCharsets.UTF_8)), t);
            if (chat.status() != 200) {
                return "a normal request afterwards got " + chat.status() + ": " + chat.text();
            }
            String content = JSON.readTree(chat.body()).at("/choices/0/message/content").asText();
            return content.contains("still here") ? null : "a normal request afterwards answered: " + content;
        } catch (IOException e) {
            return "no answer afterwards: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
