package io.rkllm.server.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP/1.1 request written by hand on a plain socket, so that a test decides exactly when the
 * connection closes (a client that goes away mid-answer, as Open WebUI's Stop button does).
 */
final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();

    private RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
    }

    /** Opens a connection and sends {@code POST path} with a JSON body. */
    static RawHttp post(int port, String path, String json) throws IOException {
        return pipelined(port, path, json);
    }

    /** Opens a connection and sends every request at once, without waiting for the answers (HTTP pipelining). */
    static RawHttp pipelined(int port, String path, String... jsons) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000);
        RawHttp http = new RawHttp(socket);
        http.send(path, jsons);
        return http;
    }

    /** Sends more requests on the connection, whatever it is doing (HTTP pipelining). */
    void send(String path, String... jsons) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (String json : jsons) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            all.writeBytes(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + socket.getPort()
                    + "\r\nContent-Type: application/json\r\nAccept: */*\r\nContent-Length: " + body.length
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            all.writeBytes(body);
        }
        OutputStream out = socket.getOutputStream();
        out.write(all.toByteArray());
        out.flush();
    }

    /** Reads until the text received so far contains {@code needle} {@code count} times; false at end of stream. */
    boolean readUntil(String needle, int count) throws IOException {
        byte[] buffer = new byte[4096];
        while (occurrences(text(), needle) < count) {
            int n = in.read(buffer);
            if (n < 0) {
                return false;
            }
            received.write(buffer, 0, n);
        }
        return true;
    }

    String text() {
        return received.toString(StandardCharsets.UTF_8);
    }

    static int occurrences(String text, String needle) {
        int count = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            count++;
        }
        return count;
    }

    /** Closes the connection at once, whatever the server is still sending. */
    @Override
    public void close() throws IOException {
        socket.close();
    }
}
