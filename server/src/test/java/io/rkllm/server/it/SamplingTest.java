package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.ffm.Abi;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sampling honesty: runtime 1.3 takes a request's sampling per run; runtime 1.2 cannot (sampling is
 * fixed at load), and says so in {@code X-RKLLM-Sampling} instead of pretending.
 */
class SamplingTest {
    private static final String SAMPLED = "\"temperature\":0.3,\"top_p\":0.5,\"top_k\":7,\"repeat_penalty\":1.3,"
            + "\"presence_penalty\":0.25,\"frequency_penalty\":-0.5";

    @TempDir
    Path dir;

    private static String chat(String extra, boolean stream) {
        return "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]]\"}]"
                + (extra.isEmpty() ? "" : "," + extra) + (stream ? ",\"stream\":true" : "") + "}";
    }

    @Test
    void runtime12IgnoresRequestSamplingAndSaysSoInAHeader() throws Exception {
        try (TestServer server = TestServer.in(dir).abi(Abi.V1_2).model("m", Map.of()).start()) {
            for (boolean stream : new boolean[] {false, true}) {
                TestServer.Reply sampled = server.postForReply("/v1/chat/completions", chat(SAMPLED, stream));
                assertThat(sampled.status()).isEqualTo(200);
                assertThat(sampled.header("X-RKLLM-Sampling")).contains("ignored").contains("1.2");
                assertThat(server.runs("m").getLast().get("sampling").isNull()).as("no per-run sampling").isTrue();

                TestServer.Reply plain = server.postForReply("/v1/chat/completions", chat("", stream));
                assertThat(plain.status()).isEqualTo(200);
                assertThat(plain.header("X-RKLLM-Sampling")).as("nothing to report").isNull();
            }
            TestServer.Reply legacy = server.postForReply("/v1/completions",
                    "{\"model\":\"m\",\"prompt\":\"[[say:ok]]\",\"temperature\":0.3}");
            assertThat(legacy.header("X-RKLLM-Sampling")).contains("ignored");
            JsonNode init = server.trace("m").getFirst();
            assertThat(init.get("call").asText()).isEqualTo("init");
            assertThat(init.get("temperature").asDouble()).as("the load-time value, not the request's")
                    .isNotCloseTo(0.3, within(1e-6));
        }
    }

    @Test
    void runtime13RunsWithTheRequestsSampling() throws Exception {
        try (TestServer server = TestServer.in(dir).abi(Abi.V1_3).model("m", Map.of()).start()) {
            for (boolean stream : new boolean[] {false, true}) {
                TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat(SAMPLED, stream));
                assertThat(reply.status()).isEqualTo(200);
                assertThat(reply.header("X-RKLLM-Sampling")).isNull();
                JsonNode sampling = server.runs("m").getLast().get("sampling");
                assertThat(sampling.isObject()).isTrue();
                assertThat(sampling.get("temperature").asDouble()).isCloseTo(0.3, within(1e-6));
                assertThat(sampling.get("top_p").asDouble()).isCloseTo(0.5, within(1e-6));
                assertThat(sampling.get("top_k").asInt()).isEqualTo(7);
                assertThat(sampling.get("repeat_penalty").asDouble()).isCloseTo(1.3, within(1e-6));
                assertThat(sampling.get("presence_penalty").asDouble()).isCloseTo(0.25, within(1e-6));
                assertThat(sampling.get("frequency_penalty").asDouble()).isCloseTo(-0.5, within(1e-6));
            }
            // what the RKLLM runtime cannot take is said, not pretended
            TestServer.Reply typical = server.postForReply("/v1/chat/completions", chat("\"typical_p\":0.5,"
                    + "\"repeat_last_n\":32", false));
            assertThat(typical.header("X-RKLLM-Sampling")).isEqualTo("seed, min_p, typical_p and repeat_last_n"
                    + " ignored: the RKLLM runtime has no such settings");
            // a request without sampling runs with the model's defaults, which differ from the values above
            server.postForReply("/v1/chat/completions", chat("", false));
            JsonNode defaults = server.runs("m").getLast().get("sampling");
            assertThat(defaults.get("temperature").asDouble()).isNotCloseTo(0.3, within(1e-6));
            assertThat(defaults.get("top_k").asInt()).isNotEqualTo(7);
        }
    }

    @Test
    void logitBiasIsRefusedWhereTheRuntimeCannotApplyIt() throws Exception {
        for (Abi abi : new Abi[] {Abi.V1_2, Abi.V1_3}) {
            try (TestServer server = TestServer.in(dir.resolve(abi.name())).abi(abi).model("m", Map.of()).start()) {
                for (boolean stream : new boolean[] {false, true}) {
                    int runs = server.runs("m").size();
                    TestServer.Reply reply = server.postForReply("/v1/chat/completions",
                            chat("\"logit_bias\":{\"42\":-100}", stream));
                    assertThat(reply.status()).as(reply.body()).isEqualTo(400);
                    assertThat(reply.json().at("/error/param").asText()).isEqualTo("logit_bias");
                    assertThat(reply.json().at("/error/message").asText()).contains("RKLLM runtime")
                            .contains("GGUF");
                    assertThat(server.runs("m")).as("nothing ran").hasSize(runs);
                }
                // an empty one asks for nothing, as OpenAI's clients may send it
                assertThat(server.postForReply("/v1/chat/completions", chat("\"logit_bias\":{}", false)).status())
                        .isEqualTo(200);
                TestServer.Reply legacy = server.postForReply("/v1/completions",
                        "{\"model\":\"m\",\"prompt\":\"[[say:ok]]\",\"logit_bias\":{\"7\":5}}");
                assertThat(legacy.status()).isEqualTo(400);
            }
        }
    }
}
