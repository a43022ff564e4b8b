package io.rkllm.server.it;

import static io.rkllm.server.it.ChatCompletionsTest.chat;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET /metrics after real requests: parsed, and every series checked against what the requests reported. */
class MetricsTest {
    private static final String PROTOBUF = "application/vnd.google.protobuf;"
            + "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3";

    @TempDir
    Path dir;

    private record Scrape(String contentType, byte[] body) {
    }

    private static Scrape scrape(TestServer server, String accept) throws Exception {
        Request.Builder request = new Request.Builder().url(server.url("/metrics")).get();
        if (accept != null) {
            request.header("Accept", accept);
        }
        try (Response r = server.client().newCall(request.build()).execute()) {
            assertThat(r.code()).isEqualTo(200);
            return new Scrape(r.header("Content-Type"), r.body().bytes());
        }
    }

    /** The text and the protobuf exposition of one moment, cross-checked sample by sample. */
    private static Exposition scrapeBoth(TestServer server) throws Exception {
        Scrape text = scrape(server, null);
        assertThat(text.contentType()).startsWith("text/plain").contains("version=0.0.4");
        Exposition fromText = Exposition.text(new String(text.body(), java.nio.charset.StandardCharsets.UTF_8));
        Scrape proto = scrape(server, PROTOBUF);
        assertThat(proto.contentType()).startsWith("application/vnd.google.protobuf");
        Exposition parsed = Exposition.protobuf(proto.body());
        // the same series with the same values (but the scrapes' own requests, which the second one counts)
        for (Exposition.Sample s : fromText.samples()) {
            if (comparable(s)) {
                assertThat(parsed.value(s.name(), s.labels())).as(s.key()).contains(s.value());
            }
        }
        assertThat(parsed.samples().stream().filter(MetricsTest::comparable).count())
                .isEqualTo(fromText.samples().stream().filter(MetricsTest::comparable).count());
        return parsed;
    }

    private static boolean comparable(Exposition.Sample s) {
        return s.name().startsWith("rkllm_") && !"/metrics".equals(s.labels().get("route"));
    }

    @Test
    void seriesMatchWhatTheRequestsReported() throws Exception {
        Path sys = dir.resolve("sys");
        Files.createDirectories(sys.resolve("kernel/debug/rknpu"));
        Files.writeString(sys.resolve("kernel/debug/rknpu/load"), "NPU load:  Core0: 12%, Core1:  0%, Core2: 100%,\n");
        Files.createDirectories(sys.resolve("class/devfreq/fdab0000.npu"));
        Files.writeString(sys.resolve("class/devfreq/fdab0000.npu/cur_freq"), "1000000000\n");
        Files.createDirectories(sys.resolve("class/devfreq/dmc"));
        Files.writeString(sys.resolve("class/devfreq/dmc/cur_freq"), "2112000000\n");
        try (TestServer server = TestServer.in(dir).model("m", Map.of())
                .set("metrics.sysfs_root", sys.toString()).start()) {
            int generated = 0;
            int prefilled = 0;
            int cached = 0;
            int runs = 0;

            JsonNode first = server.postForReply("/v1/chat/completions", chat("Hello there", "")).json();
            generated += first.at("/usage/completion_tokens").asInt();
            prefilled += first.at("/timings/prompt_n").asInt();
            cached += first.at("/timings/cache_n").asInt();
            runs++;
            // the follow-up reuses the KV cache: cached tokens
            String followUp = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"},"
                    + "{\"role\":\"assistant\",\"content\":" + ChatCompletionsTest.quote(
                    first.at("/choices/0/message/content").asText()) + "},{\"role\":\"user\",\"content\":\"More?\"}],"
                    + "\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
            JsonNode usage = SseEvents.parse(server.postForReply("/v1/chat/completions", followUp).body())
                    .assertValidChatStream(true).getLast();
            generated += usage.at("/usage/completion_tokens").asInt();
            prefilled += usage.at("/timings/prompt_n").asInt();
            cached += usage.at("/timings/cache_n").asInt();
            assertThat(usage.at("/timings/cache_n").asInt()).isPositive();
            runs++;

            JsonNode ollama = server.postForReply("/api/chat", chat("[[tokens:9]]", "\"stream\":false")).json();
            generated += ollama.get("eval_count").asInt();
            prefilled += ollama.get("prompt_eval_count").asInt();
            cached += server.runs("m").getLast().get("cache_before").asInt();
            runs++;

            JsonNode anthropic = server.postForReply("/v1/messages", "{\"model\":\"m\",\"max_tokens\":5,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"[[tokens:30]]\"}]}").json();
            generated += anthropic.at("/usage/output_tokens").asInt();
            prefilled += anthropic.at("/usage/input_tokens").asInt();
            cached += anthropic.at("/usage/cache_read_input_tokens").asInt();
            runs++;

            JsonNode stopped = server.postForReply("/v1/chat/completions",
                    chat("[[say:one two END three]]", "\"stop\":\"END\"")).json();
            generated += stopped.at("/usage/completion_tokens").asInt();
            prefilled += stopped.at("/timings/prompt_n").asInt();
            cached += stopped.at("/timings/cache_n").asInt();
            runs++;

            assertThat(server.postForReply("/v1/chat/completions", chat("hi", "\"model\":\"nope\"")).status())
                    .isEqualTo(404);
            assertThat(server.getForReply("/api/tags").status()).isEqualTo(200);
            assertThat(server.getForReply("/no/such/route").status()).isEqualTo(404);

            Exposition m = scrapeBoth(server);
            Map<String, String> model = Map.of("model", "m");
            assertThat(m.get("rkllm_generated_tokens_total", model)).isEqualTo(generated);
            assertThat(m.get("rkllm_prefill_tokens_total", model)).isEqualTo(prefilled);
            assertThat(m.get("rkllm_cached_tokens_total", model)).isEqualTo(cached).isPositive();
            assertThat(m.types()).containsEntry("rkllm_generated_tokens_total", "counter")
                    .containsEntry("rkllm_time_to_first_token_seconds", "histogram");
            assertThat(m.sum("rkllm_generations_total", model)).isEqualTo(runs);
            assertThat(m.get("rkllm_generations_total", Map.of("model", "m", "finish_reason", "length"))).isEqualTo(1);
            assertThat(m.get("rkllm_time_to_first_token_seconds_count", model)).isEqualTo(runs);
            assertThat(m.get("rkllm_time_to_first_token_seconds_bucket", Map.of("model", "m", "le", "+Inf")))
                    .isEqualTo(runs);
            assertThat(m.get("rkllm_prefill_duration_seconds_count", model)).isEqualTo(runs);
            assertThat(m.get("rkllm_decode_duration_seconds_count", model)).isEqualTo(runs);
            assertThat(m.get("rkllm_queue_wait_seconds_count", model)).isEqualTo(runs);
            assertThat(m.get("rkllm_queue_waiting", model)).isZero();
            assertThat(m.get("rkllm_queue_running", model)).isZero();

            assertThat(m.get("rkllm_model_loads_total", Map.of("model", "m", "result", "ok"))).isEqualTo(1);
            assertThat(m.get("rkllm_model_load_duration_seconds_count", model)).isEqualTo(1);
            assertThat(m.get("rkllm_model_loaded", model)).isEqualTo(1);
            assertThat(m.get("rkllm_aborts_total", Map.of("model", "m", "cause", "stop_string"))).isEqualTo(1);
            assertThat(m.sum("rkllm_aborts_total", Map.of())).isEqualTo(1);

            Map<String, String> chatOk = Map.of("method", "POST", "route", "/v1/chat/completions", "status", "200");
            assertThat(m.get("rkllm_http_requests_seconds_count", chatOk)).isEqualTo(3);
            assertThat(m.get("rkllm_http_requests_seconds_count",
                    Map.of("route", "/v1/chat/completions", "status", "404"))).isEqualTo(1);
            assertThat(m.get("rkllm_http_requests_seconds_count", Map.of("route", "/api/chat", "status", "200")))
                    .isEqualTo(1);
            assertThat(m.get("rkllm_http_requests_seconds_count", Map.of("route", "/v1/messages", "status", "200")))
                    .isEqualTo(1);
            assertThat(m.get("rkllm_http_requests_seconds_count", Map.of("route", "/api/tags", "method", "GET")))
                    .isEqualTo(1);
            assertThat(m.get("rkllm_http_requests_seconds_count", Map.of("route", "unmatched", "status", "404")))
                    .isEqualTo(1);

            assertThat(m.get("rkllm_npu_load_ratio", Map.of("core", "0"))).isEqualTo(0.12);
            assertThat(m.get("rkllm_npu_load_ratio", Map.of("core", "1"))).isZero();
            assertThat(m.get("rkllm_npu_load_ratio", Map.of("core", "2"))).isEqualTo(1.0);
            assertThat(m.get("rkllm_npu_frequency_hertz", Map.of("device", "fdab0000.npu"))).isEqualTo(1e9);
            assertThat(m.value("rkllm_npu_frequency_hertz", Map.of("device", "dmc"))).isEmpty();
            // read on each scrape
            Files.writeString(sys.resolve("kernel/debug/rknpu/load"), "NPU load:  Core0: 50%, Core1: 25%, Core2: 0%,\n");
            assertThat(scrapeBoth(server).get("rkllm_npu_load_ratio", Map.of("core", "0"))).isEqualTo(0.5);

            assertThat(m.sum("jvm_memory_used_bytes", Map.of())).isPositive();
            assertThat(m.value("process_uptime_seconds", Map.of())).isPresent();

            assertThat(server.postForReply("/v1/models/m/unload", "").status()).isEqualTo(200);
            Exposition after = scrapeBoth(server);
            assertThat(after.get("rkllm_model_unloads_total", Map.of("model", "m", "reason", "requested")))
                    .isEqualTo(1);
            assertThat(after.value("rkllm_model_loaded", model)).isEmpty();
            assertThat(after.value("rkllm_queue_waiting", model)).isEmpty();
        }
    }

    @Test
    void openMetricsIsServedWhenAskedFor() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            Scrape scrape = scrape(server, "application/openmetrics-text;version=1.0.0;q=0.6,text/plain;q=0.3");
            assertThat(scrape.contentType()).startsWith("application/openmetrics-text");
            assertThat(new String(scrape.body(), java.nio.charset.StandardCharsets.UTF_8)).endsWith("# EOF\n");
        }
    }

    @Test
    void disabledMetricsHaveNoRoute() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("metrics.enabled", "false").start()) {
            assertThat(server.getForReply("/metrics").status()).isEqualTo(404);
            assertThat(server.postForReply("/v1/chat/completions", chat("hi", "")).status()).isEqualTo(200);
        }
    }
}
