package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.harness.RawHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code server.idle_timeout} closes connections that wait on the client (idle keep-alives, requests
 * sent too slowly) but never a request that waits for the model, however long it stays silent.
 */
class IdleTimeoutTest {
    @TempDir
    Path dir;

    @Test
    void silentGenerationsOutliveTheIdleTimeoutButIdleClientsDoNot() throws Exception {
        // over a second of silent prefill per request, against an idle timeout of 400 ms
        try (TestServer server = TestServer.in(dir).model("m", Map.of("time_scale", "1", "init_ms", "0",
                        "prefill_tps", "25", "decode_tps", "1000"))
                .set("server.idle_timeout", "400ms").set("queue.keep_alive", "5s").start()) {
            TestServer.Reply plain = server.postForReply("/v1/chat/completions",
                    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:slow]]\"}]}");
            assertThat(plain.status()).isEqualTo(200);
            assertThat(plain.json().at("/choices/0/message/content").asText()).isEqualTo("slow");
            TestServer.Reply stream = server.postForReply("/v1/chat/completions",
                    "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"[[say:slow]]\"}]}");
            assertThat(stream.status()).isEqualTo(200);
            assertThat(stream.body()).contains("[DONE]");

            // a client that sends half a request and stalls is cut off
            try (RawHttp slow = RawHttp.open("127.0.0.1", server.port(), Duration.ofSeconds(5))) {
                slow.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"mo"
                        .getBytes(StandardCharsets.US_ASCII));
                // the client's own read timeout (5 s) is far beyond the server's 400 ms: no answer by then fails
                assertThat(closedOrAnswered(slow)).isTrue();
            }
        }
    }

    /** True once the server answers (e.g. 408) or closes the connection. */
    private static boolean closedOrAnswered(RawHttp http) {
        try {
            RawHttp.Head head = http.readHead();
            return head.status() >= 400;
        } catch (IOException e) {
            return !(e instanceof java.net.SocketTimeoutException);
        }
    }
}
