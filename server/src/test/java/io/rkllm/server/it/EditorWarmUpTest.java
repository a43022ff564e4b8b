package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * llama-server's warm-ups ({@code n_predict: 0}, an editor's files read into the cache between completions) as best
 * effort: none loads a model, none runs beside the model's own work, one runs when the model has nothing to do.
 */
class EditorWarmUpTest {
    private static final String WARM_UP = "{\"model\":\"m\",\"n_predict\":0,\"prompt\":\"def add(a, b):\"}";

    @TempDir
    Path dir;

    private static JsonNode warmUp(TestServer server) throws Exception {
        TestServer.Reply reply = server.postForReply("/completion", WARM_UP);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode json = reply.json();
        assertThat(json.get("content").asText()).isEmpty();
        assertThat(json.get("tokens_predicted").asInt()).isZero();
        return json;
    }

    @Test
    void aWarmUpLoadsNothingWaitsForNothingAndReadsWhenTheModelIsIdle() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                "decode_tps", "20", "prefill_tps", "100000")).start()) {
            // not loaded: a head start is no reason to load it
            assertThat(warmUp(server).get("tokens_evaluated").asInt()).isZero();
            assertThat(server.getForReply("/v1/models/m").json().get("loaded").asBoolean()).isFalse();
            assertThat(server.postForReply("/v1/models/m/load", "").status()).isEqualTo(200);
            // busy with a completion: answered at once, nothing read beside it
            try (RawHttp running = RawHttp.post(server.port(), "/completion", "{\"model\":\"m\",\"stream\":true,"
                    + "\"prompt\":\"[[tokens:400]]\"}")) {
                assertThat(running.readUntil("\"content\":", 2)).isTrue();
                assertThat(warmUp(server).get("tokens_evaluated").asInt()).isZero();
            }
            // idle: the prompt is read
            Poll.until("the stopped completion to end", java.time.Duration.ofSeconds(30),
                    () -> ClientDisconnectTest.health(server).at("/loaded_models/0/busy").asBoolean(), busy -> !busy);
            assertThat(warmUp(server).get("tokens_evaluated").asInt()).isPositive();
        }
    }
}
