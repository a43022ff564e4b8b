package io.rkllm.tools.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.harness.LocalServer;
import io.rkllm.server.harness.RawHttp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many concurrent clients sending streaming (and some non-streaming) chat requests whose answers
 * are known in advance ({@code [[say:TEXT]]} with a unique TEXT), a share of them hanging up at a
 * random point: before the answer, right after the 200, while the prompt is prefilled, or in the
 * middle of the stream. Every completed answer must be exactly its TEXT; with the simulated runtime's
 * trace, runs must start in submission order within the priority class and none may fail.
 */
public final class Soak {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] PADDING = ("the quick brown fox jumps over the lazy dog while seven wizards"
            + " quietly judge boxing matches near the old harbour").split(" ");

    /** Where a client hangs up. */
    public enum Disconnect {
        NONE, BEFORE_ANSWER, AFTER_HEAD, DURING_PREFILL, MID_STREAM
    }

    /**
     * @param paddingWords words before the directive, to make prefill take a while (disconnects "during prefill")
     * @param trace the simulated runtime's trace file of the model, for the order and outcome of runs (or null)
     * @param fifoMarginMillis two requests whose 200s arrived further apart than this must run in that order
     *     (closer ones may have been reordered by the client's own threads, not by the server)
     */
    public record Options(String host, int port, String model, int requests, int clients, double disconnectShare,
                          double nonStreamingShare, long seed, Duration timeout, int paddingWords, String apiKey,
                          Path trace, int fifoMarginMillis) {
    }

    record Plan(int index, String text, boolean stream, Disconnect disconnect, int cutAfterChunks, long cutDelayMillis,
                boolean reset) {
    }

    enum Status {
        COMPLETED, DISCONNECTED, REJECTED, FAILED
    }

    record Outcome(Plan plan, Status status, String detail, long headNanos) {
    }

    /** What happened, with every check's figure. */
    public record Report(int requests, int completed, Map<Disconnect, Integer> disconnected, int rejected, int retries,
                         List<String> failures, List<String> wrongAnswers, Map<String, Integer> runResults,
                         int cancelledInQueue, int abortedInPrefill, int finishedForGoneClients, int fifoPairs, List<String> fifoViolations,
                         boolean traced, long millis) {
        public boolean passed() {
            return failures.isEmpty() && wrongAnswers.isEmpty() && fifoViolations.isEmpty()
                    && runResults.getOrDefault("error", 0) == 0;
        }

        public String summary() {
            int gone = disconnected.values().stream().mapToInt(Integer::intValue).sum();
            StringBuilder s = new StringBuilder();
            s.append(requests).append(" requests in ").append(millis).append(" ms: ").append(completed)
                    .append(" completed (").append(wrongAnswers.size()).append(" with a wrong text), ").append(gone)
                    .append(" disconnected ").append(disconnected).append(", ").append(rejected)
                    .append(" rejected (429/503 after 30 retries), ").append(failures.size()).append(" failed, ")
                    .append(retries).append(" retries after a 429/503");
            if (traced) {
                s.append("; runs ").append(runResults).append(", ").append(cancelledInQueue)
                        .append(" of the disconnected never ran (left the queue), ").append(abortedInPrefill)
                        .append(" aborted before their first token, ").append(finishedForGoneClients)
                        .append(" finished although the client had gone; FIFO: ").append(fifoPairs)
                        .append(" ordered pairs checked, ").append(fifoViolations.size()).append(" violations");
            }
            return s.toString();
        }
    }

    private final Options options;
    private final AtomicInteger retries = new AtomicInteger();

    public Soak(Options options) {
        this.options = options;
    }

    public Report run() throws InterruptedException {
        Random random = new Random(options.seed());
        List<Plan> plans = new ArrayList<>();
        String run = Long.toString(Math.abs(options.seed() % 46656), 36);
        for (int i = 0; i < options.requests(); i++) {
            Disconnect d = Disconnect.NONE;
            if (random.nextDouble() < options.disconnectShare()) {
                d = Disconnect.values()[1 + random.nextInt(Disconnect.values().length - 1)];
            }
            boolean stream = random.nextDouble() >= options.nonStreamingShare();
            if (!stream && (d == Disconnect.AFTER_HEAD || d == Disconnect.MID_STREAM)) {
                d = Disconnect.DURING_PREFILL; // a non-streaming answer has no head before it is complete
            }
            String text = "soak " + run + "-" + i + " café 日本 🚀 " + Integer.toHexString(random.nextInt(1 << 20));
            // a cut "during prefill" comes 0-2 s after the 200: in the queue when it is long, else in the prefill
            long delay = d == Disconnect.DURING_PREFILL ? random.nextInt(2000) : random.nextInt(120);
            plans.add(new Plan(i, text, stream, d, 1 + random.nextInt(8), delay, random.nextBoolean()));
        }
        long t0 = System.nanoTime();
        List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> clients = new ArrayList<>();
            for (int c = 0; c < options.clients(); c++) {
                clients.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < plans.size(); i = next.getAndIncrement()) {
                        outcomes.add(execute(plans.get(i)));
                    }
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
            }
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        return report(outcomes, millis);
    }

    private byte[] request(Plan p) {
        StringBuilder prompt = new StringBuilder();
        for (int i = 0; i < options.paddingWords(); i++) {
            prompt.append(PADDING[(i + p.index()) % PADDING.length]).append(' ');
        }
        prompt.append("[[say:").append(p.text()).append("]]");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", options.model());
        body.put("messages", List.of(Map.of("role", "user", "content", prompt.toString())));
        body.put("stream", p.stream());
        if (p.stream()) {
            body.put("stream_options", Map.of("include_usage", true));
        }
        body.put("reasoning_effort", "none");
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        if (options.apiKey() != null) {
            headers.put("Authorization", "Bearer " + options.apiKey());
        }
        try {
            return RawHttp.request("POST", "/v1/chat/completions", headers, JSON.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Like an OpenAI SDK: a 429 or 503 is retried after (at most a second of) its Retry-After, a few times. */
    private Outcome execute(Plan p) {
        Outcome outcome = attempt(p);
        for (int retry = 0; retry < 30 && outcome.status() == Status.REJECTED; retry++) {
            retries.incrementAndGet();
            sleep(Math.min(1000, outcome.headNanos()));
            outcome = attempt(p);
        }
        return outcome;
    }

    private Outcome attempt(Plan p) {
        try (RawHttp http = RawHttp.open(options.host(), options.port(), options.timeout())) {
            http.send(request(p));
            if (p.disconnect() == Disconnect.BEFORE_ANSWER || (!p.stream() && p.disconnect() != Disconnect.NONE)) {
                sleep(p.disconnect() == Disconnect.BEFORE_ANSWER ? p.cutDelayMillis() % 5 : p.cutDelayMillis());
                http.hangUp(p.reset());
                return new Outcome(p, Status.DISCONNECTED, "", 0);
            }
            RawHttp.Head head = http.readHead();
            long headAt = System.nanoTime();
            if (head.status() == 429 || head.status() == 503) {
                String why = new String(http.body(head, false).readAllBytes(), StandardCharsets.UTF_8);
                String after = head.header("retry-after");
                long backoffMillis = after == null ? 1000 : Long.parseLong(after.strip()) * 1000;
                return new Outcome(p, Status.REJECTED, head.status() + " " + why, backoffMillis);
            }
            InputStream body = http.body(head, false);
            if (head.status() != 200) {
                return new Outcome(p, Status.FAILED, "status " + head.status() + ": "
                        + new String(body.readAllBytes(), StandardCharsets.UTF_8), headAt);
            }
            if (!p.stream()) {
                JsonNode answer = JSON.readTree(body.readAllBytes());
                String content = answer.at("/choices/0/message/content").asText();
                return content.equals(p.text()) ? new Outcome(p, Status.COMPLETED, "", headAt)
                        : new Outcome(p, Status.COMPLETED, "wrong answer: " + content, headAt);
            }
            if (p.disconnect() == Disconnect.AFTER_HEAD) {
                http.hangUp(p.reset());
                return new Outcome(p, Status.DISCONNECTED, "", headAt);
            }
            if (p.disconnect() == Disconnect.DURING_PREFILL) {
                sleep(p.cutDelayMillis());
                http.hangUp(p.reset());
                return new Outcome(p, Status.DISCONNECTED, "", headAt);
            }
            return readStream(p, http, body, headAt);
        } catch (IOException e) {
            return new Outcome(p, Status.FAILED, e.toString(), 0);
        }
    }

    private Outcome readStream(Plan p, RawHttp http, InputStream body, long headAt) throws IOException {
        StringBuilder content = new StringBuilder();
        int chunks = 0;
        String finish = null;
        boolean done = false;
        for (String event = nextEvent(body); event != null; event = nextEvent(body)) {
            if (event.startsWith(":")) {
                continue;
            }
            if (!event.startsWith("data: ")) {
                return new Outcome(p, Status.FAILED, "not an SSE data event: " + event, headAt);
            }
            String data = event.substring(6);
            if (data.equals("[DONE]")) {
                done = true;
                break;
            }
            JsonNode chunk = JSON.readTree(data);
            if (chunk.has("error")) {
                return new Outcome(p, Status.FAILED, "error event: " + data, headAt);
            }
            JsonNode choice = chunk.path("choices").path(0);
            String piece = choice.path("delta").path("content").asText("");
            if (!piece.isEmpty()) {
                content.append(piece);
                chunks++;
                if (p.disconnect() == Disconnect.MID_STREAM && chunks >= p.cutAfterChunks()) {
                    http.hangUp(p.reset());
                    return new Outcome(p, Status.DISCONNECTED, "", headAt);
                }
            }
            if (!choice.path("finish_reason").isMissingNode() && !choice.path("finish_reason").isNull()) {
                finish = choice.path("finish_reason").asText();
            }
        }
        if (p.disconnect() == Disconnect.MID_STREAM) {
            // the answer was shorter than the cut point: it completed
        }
        if (!done) {
            return new Outcome(p, Status.FAILED, "the stream ended without [DONE] after: " + content, headAt);
        }
        if (!"stop".equals(finish)) {
            return new Outcome(p, Status.COMPLETED, "finish_reason " + finish, headAt);
        }
        return content.toString().equals(p.text()) ? new Outcome(p, Status.COMPLETED, "", headAt)
                : new Outcome(p, Status.COMPLETED, "wrong answer: " + content, headAt);
    }

    /** The next SSE event (its lines joined), or null at the end of the stream. */
    private static String nextEvent(InputStream in) throws IOException {
        ByteArrayOutputStream event = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                return event.size() == 0 ? null : event.toString(StandardCharsets.UTF_8);
            }
            if (b == '\n' && previous == '\n') {
                byte[] bytes = event.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            event.write(b);
            previous = b;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Report report(List<Outcome> outcomes, long millis) {
        int completed = 0;
        int rejected = 0;
        Map<Disconnect, Integer> disconnected = new EnumMap<>(Disconnect.class);
        List<String> failures = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        Map<String, Outcome> byText = new HashMap<>();
        for (Outcome o : outcomes) {
            byText.put(o.plan().text(), o);
            switch (o.status()) {
                case COMPLETED -> {
                    completed++;
                    if (!o.detail().isEmpty()) {
                        wrong.add("request " + o.plan().index() + ": " + o.detail() + " (expected " + o.plan().text() + ")");
                    }
                }
                case DISCONNECTED -> disconnected.merge(o.plan().disconnect(), 1, Integer::sum);
                case REJECTED -> {
                    rejected++;
                    if (System.getenv("SOAK_DEBUG") != null) {
                        System.out.println("rejected " + o.plan().index() + ": " + o.detail());
                    }
                }
                case FAILED -> failures.add("request " + o.plan().index() + " (" + o.plan().disconnect() + "): " + o.detail());
            }
        }
        Map<String, Integer> results = new LinkedHashMap<>();
        int abortedInPrefill = 0;
        int cancelledInQueue = 0;
        int finishedForGone = 0;
        int pairs = 0;
        List<String> violations = new ArrayList<>();
        boolean traced = options.trace() != null;
        if (traced) {
            List<Outcome> ran = new ArrayList<>();
            Set<Integer> hasRun = new HashSet<>();
            for (JsonNode line : LocalServer.readTrace(options.trace())) {
                if (!line.path("call").asText().equals("run")) {
                    continue;
                }
                String prompt = line.path("prompt").asText();
                Outcome o = null;
                int at = prompt.lastIndexOf("[[say:");
                if (at >= 0) {
                    int end = prompt.indexOf("]]", at);
                    o = byText.get(prompt.substring(at + 6, end < 0 ? prompt.length() : end));
                }
                if (o == null) {
                    continue; // a run of something else (another client, an earlier round)
                }
                String result = line.path("result").asText();
                results.merge(result, 1, Integer::sum);
                if (result.equals("abort") && line.path("generate_tokens").asInt() == 0) {
                    abortedInPrefill++;
                }
                if (result.equals("finish") && o.status() == Status.DISCONNECTED) {
                    finishedForGone++;
                }
                if (result.equals("error")) {
                    failures.add("request " + o.plan().index() + ": the run failed: " + line.path("error").asText());
                }
                ran.add(o);
                hasRun.add(o.plan().index());
            }
            for (Outcome o : outcomes) {
                if (o.status() == Status.DISCONNECTED && !hasRun.contains(o.plan().index())) {
                    cancelledInQueue++;
                }
            }
            // FIFO within the class: a request whose 200 arrived clearly before another's ran before it
            long margin = options.fifoMarginMillis() * 1_000_000L;
            for (int i = 0; i < ran.size(); i++) {
                Outcome later = ran.get(i);
                if (later.headNanos() == 0 || !later.plan().stream()) {
                    continue;
                }
                for (int j = i + 1; j < ran.size(); j++) {
                    Outcome earlier = ran.get(j);
                    if (earlier.headNanos() == 0 || !earlier.plan().stream()) {
                        continue;
                    }
                    if (earlier.headNanos() + margin < later.headNanos()) {
                        violations.add("request " + earlier.plan().index() + " was queued "
                                + (later.headNanos() - earlier.headNanos()) / 1_000_000 + " ms before request "
                                + later.plan().index() + " but ran after it");
                    } else if (later.headNanos() + margin < earlier.headNanos()) {
                        pairs++;
                    }
                }
            }
        }
        return new Report(options.requests(), completed, disconnected, rejected, retries.get(), failures, wrong, results,
                cancelledInQueue, abortedInPrefill, finishedForGone, pairs, violations, traced, millis);
    }
}
