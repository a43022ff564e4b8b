package io.rkllm.server.harness;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, byte for byte: sends exactly the bytes given (malformed ones
 * included) and reads the answer with a deadline, so a fuzzer can send what no HTTP client would
 * and a soak client can hang up at any byte.
 */
public final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final long deadline;

    /** The status line and headers of an answer; header names lower-cased. */
    public record Head(int status, String reason, Map<String, List<String>> headers) {
        public String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.getFirst();
        }

        boolean chunked() {
            String te = header("transfer-encoding");
            return te != null && te.toLowerCase(Locale.ROOT).contains("chunked");
        }
    }

    /** A whole answer. */
    public record Response(Head head, byte[] body) {
        public int status() {
            return head.status();
        }

        public String header(String name) {
            return head.header(name);
        }

        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private RawHttp(Socket socket, Duration timeout) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), 16384);
        this.out = socket.getOutputStream();
        this.deadline = System.nanoTime() + timeout.toNanos();
    }

    /** Connects; every later read must complete within {@code timeout} of now. */
    public static RawHttp open(String host, int port, Duration timeout) throws IOException {
        Socket socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), (int) Math.min(timeout.toMillis(), 10_000));
        return new RawHttp(socket, timeout);
    }

    /** Sends {@code request} and reads the whole answer (after {@code Connection: close} the server hangs up). */
    public static Response exchange(String host, int port, byte[] request, Duration timeout) throws IOException {
        return exchange(host, port, request, timeout, false);
    }

    /**
     * Like {@link #exchange(String, int, byte[], Duration)}, writing on another thread while the answer is
     * read, as a careful client does: a server may answer (413, 401) and hang up before reading a large body.
     */
    public static Response exchange(String host, int port, byte[] request, Duration timeout, boolean headRequest)
            throws IOException {
        try (RawHttp http = open(host, port, timeout)) {
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    http.send(request);
                } catch (IOException e) {
                    // the server stopped reading: its answer tells why
                }
            });
            try {
                Head head = http.readHead();
                return new Response(head, http.body(head, headRequest).readAllBytes());
            } finally {
                http.hangUp(false);
                try {
                    writer.join(timeout.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** A request with {@code Connection: close} and a Content-Length. */
    public static byte[] request(String method, String target, Map<String, String> headers, byte[] body) {
        StringBuilder s = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1\r\n");
        headers.forEach((k, v) -> s.append(k).append(": ").append(v).append("\r\n"));
        if (body != null) {
            s.append("Content-Length: ").append(body.length).append("\r\n");
        }
        s.append("Connection: close\r\n\r\n");
        byte[] head = s.toString().getBytes(StandardCharsets.UTF_8);
        if (body == null) {
            return head;
        }
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    public void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The status line and headers, skipping interim 1xx answers. */
    public Head readHead() throws IOException {
        while (true) {
            String status = readLine();
            String[] parts = status.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                throw new IOException("not an HTTP status line: " + status);
            }
            int code = Integer.parseInt(parts[1]);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (String line = readLine(); !line.isEmpty(); line = readLine()) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    headers.computeIfAbsent(line.substring(0, colon).strip().toLowerCase(Locale.ROOT),
                            k -> new ArrayList<>()).add(line.substring(colon + 1).strip());
                }
            }
            if (code >= 100 && code < 200) {
                continue;
            }
            return new Head(code, parts.length > 2 ? parts[2] : "", headers);
        }
    }

    /** The body as it arrives (chunked decoding, Content-Length, or up to the end of the connection). */
    public InputStream body(Head head, boolean headRequest) {
        if (headRequest || head.status() == 204 || head.status() == 304) {
            return InputStream.nullInputStream();
        }
        if (head.chunked()) {
            return new Chunked();
        }
        String length = head.header("content-length");
        if (length != null) {
            return new Limited(Long.parseLong(length.strip()));
        }
        return new Timed();
    }

    /** Hangs up: a FIN, or with {@code reset} a TCP RST (SO_LINGER 0). */
    public void hangUp(boolean reset) {
        try {
            if (reset) {
                socket.setSoLinger(true, 0);
            }
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        hangUp(false);
    }

    private int read() throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("no complete answer in time");
        }
        socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
        return in.read();
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = read();
            if (b < 0) {
                throw new EOFException("connection closed in the middle of a line");
            }
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
            if (line.size() > 65536) {
                throw new IOException("line too long");
            }
        }
    }

    /** Reads to the end of the connection. */
    private final class Timed extends InputStream {
        @Override
        public int read() throws IOException {
            return RawHttp.this.read();
        }
    }

    private final class Limited extends InputStream {
        private long left;

        Limited(long length) {
            this.left = length;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = RawHttp.this.read();
            if (b < 0) {
                throw new EOFException("the body ended early");
            }
            left--;
            return b;
        }
    }

    private final class Chunked extends InputStream {
        private long left;
        private boolean done;

        @Override
        public int read() throws IOException {
            if (done) {
                return -1;
            }
            if (left == 0) {
                String size = readLine();
                int semi = size.indexOf(';');
                left = Long.parseLong((semi >= 0 ? size.substring(0, semi) : size).strip(), 16);
                if (left == 0) {
                    for (String trailer = readLine(); !trailer.isEmpty(); trailer = readLine()) {
                        // trailers are ignored
                    }
                    done = true;
                    return -1;
                }
            }
            int b = RawHttp.this.read();
            if (b < 0) {
                throw new EOFException("the chunked body ended early");
            }
            if (--left == 0) {
                readLine();
            }
            return b;
        }
    }
}
