package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bodies Jetty cannot read to their end (a malformed chunk; fewer bytes than the Content-Length, then the client's
 * half-close): the client's mistake, a 400 in the route's API shape, and no error logged with its stack.
 */
class UnreadableBodyTest {
    @TempDir
    Path dir;

    /** Writes {@code request} as it is (each character one byte), half-closes, and reads the whole answer. */
    private static String exchange(int port, String request) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            socket.shutdownOutput();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            in.transferTo(answer);
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void aBodyCutShortOrMalformedIsA400() throws Exception {
        try (LogCapture log = LogCapture.server();
             TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            String chunked = "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\nZZ\r\n{\"model\":\"m\"}\r\n0\r\n\r\n";
            String short_ = "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n{\"model\":";
            for (String request : new String[] {chunked, short_}) {
                String openAi = exchange(server.port(), request.formatted("/v1/chat/completions"));
                assertThat(openAi).startsWith("HTTP/1.1 400").contains("\"type\":\"invalid_request_error\"")
                        .doesNotContain("internal");
                String ollama = exchange(server.port(), request.formatted("/api/chat"));
                assertThat(ollama).startsWith("HTTP/1.1 400").contains("{\"error\":\"");
            }
            assertThat(log.warnings()).as("nothing logged as the server's failure").isEmpty();
            assertThat(server.postForReply("/v1/chat/completions", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"[[say:ok]]\"}]}").status()).isEqualTo(200);
        }
    }

    @Test
    void bytesThatAreNotUtf8AndTextAfterTheBodyAre400s() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            String chat = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:ok]] X\"}]}";
            byte[] bytes = chat.getBytes(StandardCharsets.UTF_8);
            int x = chat.indexOf('X');
            bytes[x] = (byte) 0xff;
            String request = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n";
            String reply = exchange(server.port(), request + new String(bytes, StandardCharsets.ISO_8859_1));
            assertThat(reply).startsWith("HTTP/1.1 400").contains("not valid UTF-8 (byte " + x + " ");
            TestServer.Reply trailing = server.postForReply("/v1/chat/completions", chat + " trailing");
            assertThat(trailing.status()).isEqualTo(400);
            assertThat(trailing.json().at("/error/message").asText()).contains("not valid JSON");
            assertThat(server.postForReply("/v1/chat/completions", chat + "\n").status()).isEqualTo(200);
            // valid JSON the server does not read is not called invalid
            TestServer.Reply deep = server.postForReply("/v1/chat/completions", "{\"model\":\"m\",\"x\":"
                    + "[".repeat(70) + "]".repeat(70) + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertThat(deep.status()).isEqualTo(400);
            assertThat(deep.json().at("/error/message").asText()).startsWith("the request body is beyond this"
                    + " server's limits: Document nesting depth (65) exceeds the maximum allowed (64)");
        }
    }
}
