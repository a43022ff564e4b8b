package io.rkllm.server.download;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stand-in Hub's storage origin (where {@code resolve} redirects to, as the Hub's to its CDN): a small HTTP/1.1
 * server on loopback that hands a file on disk to the socket with {@code sendfile} ({@link FileChannel#transferTo}).
 * The JDK's {@code HttpServer} copies every byte through the heap and a direct buffer, which on two shared cores took
 * a third of the CPU a gigabyte's transfer needs from the client it serves, curl or the pull (scripts/bench-pull):
 * the bench measured the stand-in as much as the client. GET and HEAD, keep-alive, no request bodies.
 */
final class StandInStorage implements AutoCloseable {
    private static final int MAX_HEAD = 16 * 1024;

    /** A request: its method, raw path (with the query) and headers (names in lower case). */
    record Request(String method, String target, Map<String, String> headers) {
        Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
        }

        String path() {
            int q = target.indexOf('?');
            return q < 0 ? target : target.substring(0, q);
        }
    }

    /** Answers one request on {@link Answer}. */
    interface Handler {
        void handle(Request request, Answer answer) throws IOException;
    }

    /** The answer to one request: the status line and headers once, then the body's bytes in order. */
    static final class Answer {
        private final SocketChannel socket;
        private final boolean head;
        private long left = -1;

        private Answer(SocketChannel socket, boolean head) {
            this.socket = socket;
            this.head = head;
        }

        /** The status and headers, for a body of {@code length} bytes (sent as Content-Length, HEAD too). */
        void start(int status, Map<String, String> headers, long length) throws IOException {
            StringBuilder h = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason(status))
                    .append("\r\n");
            headers.forEach((k, v) -> h.append(k).append(": ").append(v).append("\r\n"));
            h.append("Content-Length: ").append(length).append("\r\n\r\n");
            write(ByteBuffer.wrap(h.toString().getBytes(StandardCharsets.ISO_8859_1)));
            left = head ? 0 : length;
        }

        /** Whether the body is to be sent (not for HEAD). */
        boolean wantsBody() {
            return !head;
        }

        void send(byte[] bytes, int from, int count) throws IOException {
            write(ByteBuffer.wrap(bytes, from, count));
            left -= count;
        }

        /** {@code count} bytes of {@code file} from {@code from}, by the kernel from the page cache to the socket. */
        void send(FileChannel file, long from, long count) throws IOException {
            long at = from;
            long end = from + count;
            while (at < end) {
                long n = file.transferTo(at, end - at, socket);
                if (n <= 0) {
                    throw new IOException("the file ended at " + at);
                }
                at += n;
            }
            left -= count;
        }

        private void write(ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                socket.write(b);
            }
        }

        private boolean complete() {
            return left == 0;
        }
    }

    private final ServerSocketChannel server;
    private final Handler handler;
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;

    StandInStorage(Handler handler) throws IOException {
        this.handler = handler;
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        acceptor = Thread.ofPlatform().daemon().name("stand-in-storage").start(this::accept);
    }

    int port() {
        return ((InetSocketAddress) address()).getPort();
    }

    private java.net.SocketAddress address() {
        try {
            return server.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A file to send from: opened for each answer, as the storage's own reads are. */
    static FileChannel open(Path file) throws IOException {
        return FileChannel.open(file, StandardOpenOption.READ);
    }

    private void accept() {
        while (server.isOpen()) {
            try {
                SocketChannel s = server.accept();
                s.setOption(StandardSocketOptions.TCP_NODELAY, true);
                open.add(s);
                // a platform thread: on a virtual one the socket is non-blocking underneath, and sendfile into it
                // returns 0 when the socket's buffer is full instead of waiting
                Thread.ofPlatform().daemon().name("stand-in-storage-connection").start(() -> serve(s));
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                // one connection that failed to be accepted: the next may be
            }
        }
    }

    /** Requests one after another on a connection; an answer cut short (a fault, a client gone) closes it. */
    private void serve(SocketChannel s) {
        try (s) {
            ByteBuffer in = ByteBuffer.allocate(MAX_HEAD);
            while (true) {
                Optional<Request> r = read(s, in);
                if (r.isEmpty()) {
                    return;
                }
                Answer a = new Answer(s, r.get().method().equals("HEAD"));
                handler.handle(r.get(), a);
                if (!a.complete() || r.get().header("Connection").orElse("").equalsIgnoreCase("close")) {
                    return;
                }
            }
        } catch (IOException e) {
            // the client went away, or a fault cut the answer: the connection ends either way
        } finally {
            open.remove(s);
        }
    }

    /** The next request's head, or empty when the client closed the connection. */
    private static Optional<Request> read(SocketChannel s, ByteBuffer in) throws IOException {
        while (true) {
            int end = headEnd(in);
            if (end >= 0) {
                String head = new String(in.array(), 0, end, StandardCharsets.ISO_8859_1);
                in.limit(in.position()).position(end + 4);
                in.compact();
                String[] lines = head.split("\r\n");
                String[] first = lines[0].split(" ");
                if (first.length != 3) {
                    throw new IOException("not a request line: " + lines[0]);
                }
                Map<String, String> headers = new LinkedHashMap<>();
                for (int i = 1; i < lines.length; i++) {
                    int colon = lines[i].indexOf(':');
                    if (colon > 0) {
                        headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                                lines[i].substring(colon + 1).strip());
                    }
                }
                return Optional.of(new Request(first[0], first[1], headers));
            }
            if (!in.hasRemaining()) {
                throw new IOException("a request head over " + MAX_HEAD + " bytes");
            }
            if (s.read(in) < 0) {
                return Optional.empty();
            }
        }
    }

    private static int headEnd(ByteBuffer in) {
        byte[] b = in.array();
        for (int i = 0; i + 3 < in.position(); i++) {
            if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 206 -> "Partial Content";
            case 404 -> "Not Found";
            case 416 -> "Range Not Satisfiable";
            default -> "Status";
        };
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing: nothing more to do
        }
        for (SocketChannel s : open) {
            try {
                s.close();
            } catch (IOException e) {
                // closing: nothing more to do
            }
        }
        try {
            acceptor.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
