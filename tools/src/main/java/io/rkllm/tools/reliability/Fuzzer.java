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
    /** How the error of an answer that failed its JSON or tool check begins (the one error a good stream may end in). */
    static final String INVALID_OUTPUT_MESSAGE = "the model did not produce a valid answer";

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
                                    abbreviate(c.bytes())));
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
            return "server error " + status + ": " + abbreviate(response.body());
        }
        Api api = Api.of(c.path());
        if (status >= 400) {
            if (c.head()) {
                return null;
            }
            if (type == null || !type.startsWith("application/json")) {
                return status + " with Content-Type " + type + ": " + abbreviate(response.body());
            }
            return switch (api) {
                case OLLAMA -> ollamaError(body);
                case ANTHROPIC -> anthropicError(body);
                case OPENAI -> openAiError(body);
                case ANY -> openAiError(body) == null || ollamaError(body) == null || anthropicError(body) == null
                        ? null : openAiError(body);
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
            return api == Api.ANTHROPIC ? anthropicSse(body)
                    : route.equals("/v1/responses") || route.equals("/responses") ? responsesSse(body) : sse(body);
        }
        if (type != null && type.startsWith("application/x-ndjson")) {
            return ndjson(body);
        }
        if (c.path().startsWith("/metrics") && type != null && type.startsWith("text/plain")) {
            return null; // Prometheus' text exposition
        }
        if (c.path().replaceFirst("[?#].*", "").equals("/") && type != null && type.startsWith("text/plain")) {
            return body.equals("Ollama is running") ? null : "GET / answered " + abbreviate(response.body());
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
                return "an error inside a 2xx: " + abbreviate(response.body());
            }
            return null;
        } catch (IOException e) {
            return "a 2xx body that is not JSON: " + abbreviate(response.body());
        }
    }

    /** Which API a path belongs to: its errors and streams have their own shapes. */
    enum Api {
        OPENAI, OLLAMA, ANTHROPIC, ANY;

        static Api of(String path) {
            String p = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
            if (p.equals("any")) {
                return ANY;
            }
            return p.startsWith("/api/") ? OLLAMA
                    : p.equals("/v1/messages") || p.startsWith("/v1/messages/") ? ANTHROPIC : OPENAI;
        }
    }

    /** Ollama's {@code {"error": "..."}}. */
    static String ollamaError(String body) {
        try {
            JsonNode node = JSON.readTree(body);
            return node.path("error").isTextual() ? null
                    : "an error body not in Ollama's shape: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return "an error body that is not JSON: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Anthropic's {@code {"type":"error","error":{"type","message"}}}. */
    static String anthropicError(String body) {
        try {
            JsonNode node = JSON.readTree(body);
            return node.path("type").asText().equals("error") && node.at("/error/type").isTextual()
                    && node.at("/error/message").isTextual() ? null
                    : "an error body not in Anthropic's shape: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return "an error body that is not JSON: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Ollama's stream: one JSON object a line, no error line, the last one {@code done: true}. */
    static String ndjson(String body) {
        List<String> lines = body.lines().filter(l -> !l.isBlank()).toList();
        if (lines.isEmpty()) {
            return "an empty NDJSON stream";
        }
        for (String line : lines) {
            try {
                JsonNode node = JSON.readTree(line);
                if (node.has("error") && node.path("error").asText().startsWith(INVALID_OUTPUT_MESSAGE)) {
                    return null;
                }
                if (node.has("error")) {
                    return "an error line in the stream: " + line;
                }
            } catch (IOException e) {
                return "an NDJSON line that is not JSON: " + line;
            }
        }
        try {
            return JSON.readTree(lines.getLast()).path("done").asBoolean() ? null
                    : "the NDJSON stream does not end with done: true";
        } catch (IOException e) {
            return "bad last line";
        }
    }

    /** Anthropic's stream: {@code event:} and {@code data:} lines, ending with message_stop, no error event. */
    static String anthropicSse(String body) {
        if (body.contains("event: error") && !body.contains(INVALID_OUTPUT_MESSAGE)) {
            return "an error event in the stream: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        }
        String trimmed = body.strip();
        return trimmed.contains("event: message_stop") && trimmed.endsWith("}") ? null
                : "the stream does not end with message_stop: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The Responses API's stream: named events whose data carries the same type and consecutive sequence numbers,
     * ending with response.completed or response.incomplete (or response.failed for a failed structured answer).
     */
    static String responsesSse(String body) {
        if (!body.endsWith("\n\n")) {
            return "the stream does not end with a blank line";
        }
        String last = null;
        int expected = 0;
        for (String event : body.substring(0, body.length() - 2).split("\n\n", -1)) {
            if (event.startsWith(":")) {
                continue;
            }
            String[] lines = event.split("\n");
            if (lines.length != 2 || !lines[0].startsWith("event: ") || !lines[1].startsWith("data: ")) {
                return "an SSE event that is not one event: and one data: line: "
                        + abbreviate(event.getBytes(StandardCharsets.UTF_8));
            }
            try {
                JsonNode node = JSON.readTree(lines[1].substring(6));
                last = lines[0].substring(7);
                if (!node.path("type").asText().equals(last) || node.path("sequence_number").asInt(-1) != expected++) {
                    return "an event whose type or sequence_number is wrong: " + lines[1];
                }
            } catch (IOException e) {
                return "an event whose data is not JSON: " + lines[1];
            }
        }
        if ("response.failed".equals(last) && body.contains("\"code\":\"invalid_output\"")) {
            return null;
        }
        return "response.completed".equals(last) || "response.incomplete".equals(last) ? null
                : "the stream does not end with response.completed: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
    }

    static String openAiError(String body) {
        try {
            JsonNode error = JSON.readTree(body).path("error");
            if (!error.isObject() || !error.path("message").isTextual() || !error.path("type").isTextual()
                    || !error.has("param") || !error.has("code")) {
                return "an error body not in the OpenAI shape: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
            }
            return null;
        } catch (IOException e) {
            return "an error body that is not JSON: " + abbreviate(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** A complete stream: only data lines and comments, every data line JSON or [DONE], [DONE] last, no error. */
    static String sse(String body) {
        if (!body.endsWith("\n\n")) {
            return "the stream does not end with a blank line";
        }
        List<String> data = new ArrayList<>();
        for (String event : body.substring(0, body.length() - 2).split("\n\n", -1)) {
            if (event.startsWith(":")) {
                continue;
            }
            if (!event.startsWith("data: ") || event.contains("\n")) {
                return "an SSE event that is not one data line: " + abbreviate(event.getBytes(StandardCharsets.UTF_8));
            }
            data.add(event.substring(6));
        }
        if (data.isEmpty() || !data.getLast().equals("[DONE]")) {
            String last = data.isEmpty() ? "" : data.getLast();
            if (last.contains("\"code\":\"invalid_output\"")) {
                return null;
            }
            return "the stream does not end with [DONE]" + (last.contains("\"error\"") ? " but with an error: " + last : "");
        }
        for (String d : data.subList(0, data.size() - 1)) {
            try {
                JsonNode node = JSON.readTree(d);
                if (node.has("error")) {
                    return "an error event in the stream: " + d;
                }
            } catch (IOException e) {
                return "an SSE data line that is not JSON: " + d;
            }
        }
        return null;
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

    static String abbreviate(byte[] bytes) {
        int n = Math.min(bytes.length, 300);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int b = bytes[i] & 0xff;
            if (b >= 0x20 && b < 0x7f) {
                s.append((char) b);
            } else if (b == '\n') {
                s.append("\\n");
            } else if (b == '\r') {
                s.append("\\r");
            } else {
                s.append(String.format("\\x%02x", b));
            }
        }
        if (bytes.length > n) {
            s.append("... (").append(bytes.length).append(" bytes)");
        }
        return s.toString();
    }
}
