package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A document upload as Open WebUI sends it: every chunk (1000 characters by default, Open WebUI's chunk size) a
 * request of its own with one text, all at once; when half of them are answered, a chat message, streamed.
 * Reports the requests, failures by status, the wall time from the first request to the last answer, the
 * runtime's own time for the same work (the embedding runs from {@code /metrics}, the chat's prefill and decode
 * from its usage) and their ratio (what the server adds: queueing, HTTP, pooling; 1.00 is none), and the chat's
 * time to first token.
 */
public final class EmbeddingBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern RUN_SUM = Pattern.compile(
            "^rkllm_embedding_run_seconds_sum\\{model=\"([^\"]+)\"} ([0-9.eE+-]+)$", Pattern.MULTILINE);
    private static final String[] WORDS = ("the board boots from its eMMC and loads the NPU driver before the "
            + "server starts; each model file holds weights converted for the RK3588 with a context of four "
            + "thousand tokens, and the runtime reads them into memory once, then answers requests one after "
            + "the other while the fans stay quiet and the power draw stays under ten watts").split(" ");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final URI base;
    private final String model;
    private final String chatModel;
    private final int chunks;
    private final int chunkChars;
    private final PrintStream out;

    /** What one upload measured. */
    public record Result(int requests, Map<Integer, Integer> failures, double wallMillis, double runtimeMillis,
                         double chatRuntimeMillis, double chatTtftMillis, double chatTotalMillis) {
        int failed() {
            return failures.values().stream().mapToInt(Integer::intValue).sum();
        }

        double ratio() {
            double pure = runtimeMillis + chatRuntimeMillis;
            return pure <= 0 ? 0 : wallMillis / pure;
        }
    }

    public EmbeddingBench(URI base, String model, String chatModel, int chunks, int chunkChars, PrintStream out) {
        this.base = base;
        this.model = model;
        this.chatModel = chatModel;
        this.chunks = chunks;
        this.chunkChars = chunkChars;
        this.out = out;
    }

    public Result run() throws IOException, InterruptedException {
        // both models loaded first: the upload measures serving, not loading
        post("/v1/models/" + model + "/load", "{}");
        post("/v1/models/" + chatModel + "/load", "{}");
        OptionalDouble before = runtimeSeconds();
        List<CompletableFuture<HttpResponse<String>>> replies = new ArrayList<>();
        AtomicInteger answered = new AtomicInteger();
        CompletableFuture<Void> half = new CompletableFuture<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < chunks; i++) {
            ObjectNode body = JSON.createObjectNode().put("model", model);
            body.putArray("input").add(chunk(i));
            replies.add(http.sendAsync(request("/v1/embeddings", body.toString()), HttpResponse.BodyHandlers.ofString())
                    .whenComplete((r, e) -> {
                        if (answered.incrementAndGet() >= chunks / 2) {
                            half.complete(null);
                        }
                    }));
        }
        half.join();
        long chatSent = System.nanoTime();
        out.printf(Locale.ROOT, "bench: %d of %d chunks answered after %.0f ms; sending a chat message%n",
                answered.get(), chunks, (chatSent - t0) / 1e6);
        Chat chat = chat();
        Map<Integer, Integer> failures = new TreeMap<>();
        for (CompletableFuture<HttpResponse<String>> reply : replies) {
            int status;
            try {
                status = reply.join().statusCode();
            } catch (RuntimeException e) {
                status = 0;
            }
            if (status != 200) {
                failures.merge(status, 1, Integer::sum);
            }
        }
        long last = System.nanoTime();
        OptionalDouble after = runtimeSeconds();
        double runtime = before.isPresent() && after.isPresent() ? (after.getAsDouble() - before.getAsDouble()) * 1000
                : 0;
        return new Result(chunks, failures, (last - t0) / 1e6, runtime, chat.runtimeMillis(),
                (chat.firstTokenNanos() - chatSent) / 1e6, (chat.endNanos() - chatSent) / 1e6);
    }

    /** The Markdown table of a result. */
    public static String markdown(String title, Result r) {
        StringBuilder s = new StringBuilder();
        s.append("#### ").append(title).append("\n\n");
        s.append("| requests | failed | wall time | runtime time | ratio | chat: time to first token | chat: total |\n");
        s.append("|---:|---:|---:|---:|---:|---:|---:|\n");
        s.append(String.format(Locale.ROOT, "| %d | %d%s | %.1f s | %.1f s | %.2f | %.0f ms | %.1f s |%n",
                r.requests(), r.failed(), r.failures().isEmpty() ? "" : " " + r.failures(), r.wallMillis() / 1000,
                (r.runtimeMillis() + r.chatRuntimeMillis()) / 1000, r.ratio(), r.chatTtftMillis(),
                r.chatTotalMillis() / 1000));
        if (r.runtimeMillis() == 0) {
            s.append("\nThe server's /metrics were not readable: runtime time and ratio are unknown.\n");
        }
        return s.toString();
    }

    /** Chunk {@code i}: prose of about {@code chunkChars} characters, different for every chunk. */
    String chunk(int i) {
        StringBuilder text = new StringBuilder("Section ").append(i + 1).append(". ");
        int w = i;
        while (text.length() < chunkChars) {
            text.append(WORDS[w++ % WORDS.length]).append(w % 17 == 0 ? ". " : " ");
        }
        return text.substring(0, chunkChars).strip();
    }

    private record Chat(long firstTokenNanos, long endNanos, double runtimeMillis) {
    }

    private Chat chat() throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("model", chatModel).put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        body.putArray("messages").addObject().put("role", "user")
                .put("content", "What does the uploaded manual say about the boot order? /no_think");
        HttpResponse<Stream<String>> response = http.send(request("/v1/chat/completions", body.toString()),
                HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() != 200) {
            throw new IOException("the chat request failed with " + response.statusCode());
        }
        long first = 0;
        double runtime = 0;
        for (String line : (Iterable<String>) response.body()::iterator) {
            if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
                continue;
            }
            JsonNode chunk = JSON.readTree(line.substring(6));
            if (chunk.has("error")) {
                throw new IOException("the chat stream failed: " + chunk.get("error"));
            }
            JsonNode delta = chunk.at("/choices/0/delta");
            if (first == 0 && (!delta.path("content").asText("").isEmpty()
                    || !delta.path("reasoning_content").asText("").isEmpty())) {
                first = System.nanoTime();
            }
            if (chunk.has("timings")) {
                runtime = chunk.at("/timings/prompt_ms").asDouble() + chunk.at("/timings/predicted_ms").asDouble();
            }
        }
        return new Chat(first, System.nanoTime(), runtime);
    }

    /** The embedding model's runtime seconds so far, from the server's metrics. */
    private OptionalDouble runtimeSeconds() {
        try {
            HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(base.resolve("/metrics")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (metrics.statusCode() != 200) {
                return OptionalDouble.empty();
            }
            Matcher m = RUN_SUM.matcher(metrics.body());
            while (m.find()) {
                if (m.group(1).equals(model)) {
                    return OptionalDouble.of(Double.parseDouble(m.group(2)));
                }
            }
            return OptionalDouble.of(0);
        } catch (IOException e) {
            return OptionalDouble.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalDouble.empty();
        }
    }

    private void post(String path, String json) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request(path, json), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("POST " + path + " failed with " + response.statusCode() + ": " + response.body());
        }
    }

    private HttpRequest request(String path, String json) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofMinutes(15))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
    }
}
