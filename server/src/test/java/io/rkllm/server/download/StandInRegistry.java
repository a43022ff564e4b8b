package io.rkllm.server.download;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An Ollama registry on loopback, for tests: {@code GET /v2/NS/MODEL/manifests/TAG} (the Docker manifest's media
 * type; a registry's {@code MANIFEST_UNKNOWN} 404 for a model it does not have), {@code GET /v2/NS/MODEL/blobs/DIGEST}
 * answered with a 307 to its storage (a second server, another origin, as Ollama's CDN), which answers {@code Range}
 * requests with a 206. Faults: a token required (a {@code Bearer} challenge, the token from {@code /token}), one
 * byte of a blob changed, a transfer cut after some bytes a number of times, a transfer held until released. Every
 * request is recorded. A layer may be a file on disk (for scripts/bench-pull, its {@link #main}): that one is sent by
 * a third server with {@code sendfile} ({@link StandInStorage}), as the stand-in Hub sends its files, so that the
 * bench measures the client rather than the stand-in.
 */
public final class StandInRegistry implements AutoCloseable {
    static final String MANIFEST = "application/vnd.docker.distribution.manifest.v2+json";

    /** A request as the stand-in saw it. */
    public record Seen(String server, String method, String path, Optional<String> range,
                       Optional<String> authorization) {
    }

    private final HttpServer registry;
    private final HttpServer storage;
    private final Map<String, byte[]> manifests = new ConcurrentHashMap<>();
    private final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
    private final Map<String, java.nio.file.Path> files = new ConcurrentHashMap<>();
    private volatile StandInStorage fileStorage;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private volatile String token;
    private volatile String corrupt;
    private volatile long cutAfter = -1;
    private final AtomicInteger cuts = new AtomicInteger();
    private volatile long holdAfter = -1;
    private volatile CountDownLatch held = new CountDownLatch(0);
    private volatile CountDownLatch reachedHold = new CountDownLatch(1);

    private StandInRegistry() throws IOException {
        registry = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        storage = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        registry.createContext("/", this::registry);
        storage.createContext("/", this::storage);
        registry.setExecutor(Executors.newCachedThreadPool());
        storage.setExecutor(Executors.newCachedThreadPool());
        registry.start();
        storage.start();
    }

    public static StandInRegistry start() {
        try {
            return new StandInRegistry();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The registry's address, {@code http://127.0.0.1:PORT}. */
    public String endpoint() {
        return "http://127.0.0.1:" + registry.getAddress().getPort();
    }

    /** The registry's host as an Ollama name writes it, {@code 127.0.0.1:PORT}. */
    public String host() {
        return "127.0.0.1:" + registry.getAddress().getPort();
    }

    /** A model's manifest, built layer by layer. */
    public final class Model {
        private final String path;
        private final List<String> layers = new ArrayList<>();

        private Model(String path) {
            this.path = path;
        }

        /** A layer of this media type ({@code model}, {@code params}... of {@code application/vnd.ollama.image.}). */
        public Model layer(String type, byte[] bytes) {
            String hex = RegistryClient.sha256(bytes);
            blobs.put("sha256:" + hex, bytes);
            layers.add("{\"mediaType\":\"application/vnd.ollama.image." + type + "\",\"digest\":\"sha256:" + hex
                    + "\",\"size\":" + bytes.length + "}");
            return this;
        }

        /** A layer that is a file on disk, of this digest (hex): sent with {@code sendfile}. */
        public Model layer(String type, java.nio.file.Path file, String sha256) throws IOException {
            synchronized (StandInRegistry.this) {
                if (fileStorage == null) {
                    fileStorage = new StandInStorage(StandInRegistry.this::fileStorage);
                }
            }
            files.put("sha256:" + sha256, file);
            layers.add("{\"mediaType\":\"application/vnd.ollama.image." + type + "\",\"digest\":\"sha256:" + sha256
                    + "\",\"size\":" + java.nio.file.Files.size(file) + "}");
            return this;
        }

        public Model layer(String type, String text) {
            return layer(type, text.getBytes(StandardCharsets.UTF_8));
        }

        /** Published: the manifest is served from now on (replacing an older one: a newer version). */
        public String publish() {
            byte[] config = "{\"model_format\":\"gguf\",\"model_family\":\"llama\",\"file_type\":\"F32\"}"
                    .getBytes(StandardCharsets.UTF_8);
            String configHex = RegistryClient.sha256(config);
            blobs.put("sha256:" + configHex, config);
            byte[] manifest = ("{\"schemaVersion\":2,\"mediaType\":\"" + MANIFEST + "\",\"config\":{\"mediaType\":"
                    + "\"application/vnd.docker.container.image.v1+json\",\"digest\":\"sha256:" + configHex
                    + "\",\"size\":" + config.length + "},\"layers\":[" + String.join(",", layers) + "]}")
                    .getBytes(StandardCharsets.UTF_8);
            manifests.put(path, manifest);
            return "sha256:" + RegistryClient.sha256(manifest);
        }
    }

    /** A model at {@code NAMESPACE/MODEL:TAG}. */
    public Model model(String namespaceModelTag) {
        int colon = namespaceModelTag.lastIndexOf(':');
        return new Model(namespaceModelTag.substring(0, colon) + "/manifests/" + namespaceModelTag.substring(colon + 1));
    }

    /** Asks for a token ({@code 401} with a {@code Bearer} challenge) before it answers. */
    public void requireToken(String value) {
        token = value;
    }

    /** One byte of this blob changed in what the storage sends. */
    public void corrupt(String digest) {
        corrupt = digest;
    }

    /** The next {@code times} transfers are cut after {@code bytes}. */
    public void cutTransfers(long bytes, int times) {
        cutAfter = bytes;
        cuts.set(times);
    }

    /** Transfers stop after {@code bytes} until {@link #release()}; {@link #awaitHold()} waits for one to get there. */
    public void holdAfter(long bytes) {
        holdAfter = bytes;
        held = new CountDownLatch(1);
        reachedHold = new CountDownLatch(1);
    }

    public void awaitHold() throws InterruptedException {
        reachedHold.await();
    }

    public void release() {
        holdAfter = -1;
        held.countDown();
    }

    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** The storage's transfers of blobs (not the small layers'), in order. */
    public List<Seen> downloads() {
        return seen.stream().filter(s -> s.server().equals("storage")).toList();
    }

    private void record(String server, HttpExchange x) {
        seen.add(new Seen(server, x.getRequestMethod(), x.getRequestURI().getPath(),
                Optional.ofNullable(x.getRequestHeaders().getFirst("Range")),
                Optional.ofNullable(x.getRequestHeaders().getFirst("Authorization"))));
    }

    private void registry(HttpExchange x) throws IOException {
        record("registry", x);
        String path = x.getRequestURI().getPath();
        if (path.equals("/token")) {
            send(x, 200, "application/json", ("{\"token\":\"" + token + "\"}").getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (!path.startsWith("/v2/")) {
            send(x, 404, "text/plain", "404 page not found".getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (token != null && !("Bearer " + token).equals(x.getRequestHeaders().getFirst("Authorization"))) {
            x.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"" + endpoint() + "/token\","
                    + "service=\"stand-in\",scope=\"repository:x:pull\"");
            send(x, 401, "application/json", "{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}".getBytes(StandardCharsets.UTF_8));
            return;
        }
        String rest = path.substring(4);
        int blob = rest.indexOf("/blobs/");
        if (blob >= 0) {
            String digest = rest.substring(blob + 7);
            if (files.containsKey(digest)) {
                x.getResponseHeaders().set("Location", "http://127.0.0.1:" + fileStorage.port() + "/blobs/" + digest);
                x.sendResponseHeaders(307, -1);
                x.close();
                return;
            }
            if (!blobs.containsKey(digest)) {
                send(x, 404, "application/json", "{\"errors\":[{\"code\":\"BLOB_UNKNOWN\"}]}".getBytes(StandardCharsets.UTF_8));
                return;
            }
            x.getResponseHeaders().set("Location", "http://127.0.0.1:" + storage.getAddress().getPort() + "/blobs/"
                    + digest);
            x.sendResponseHeaders(307, -1);
            x.close();
            return;
        }
        byte[] manifest = manifests.get(rest);
        if (manifest == null) {
            send(x, 404, "application/json", ("{\"errors\":[{\"code\":\"MANIFEST_UNKNOWN\",\"message\":\"manifest"
                    + " unknown\"}]}").getBytes(StandardCharsets.UTF_8));
            return;
        }
        send(x, 200, MANIFEST, manifest);
    }

    private void storage(HttpExchange x) throws IOException {
        record("storage", x);
        String digest = x.getRequestURI().getPath().substring("/blobs/".length());
        byte[] bytes = blobs.get(digest);
        if (bytes == null) {
            send(x, 404, "text/plain", new byte[0]);
            return;
        }
        if (digest.equals(corrupt)) {
            bytes = bytes.clone();
            bytes[bytes.length / 2] ^= 1;
        }
        long from = 0;
        String range = x.getRequestHeaders().getFirst("Range");
        if (range != null && range.startsWith("bytes=") && range.endsWith("-")) {
            from = Long.parseLong(range.substring(6, range.length() - 1));
        }
        int status = from > 0 ? 206 : 200;
        if (from > 0) {
            x.getResponseHeaders().set("Content-Range", "bytes " + from + "-" + (bytes.length - 1) + "/" + bytes.length);
        }
        x.getResponseHeaders().set("Content-Type", "application/octet-stream");
        boolean cut = cutAfter >= 0 && bytes.length > 4096 && cuts.getAndDecrement() > 0;
        // a cut body is sent chunked, ending early: the client sees it end short of the blob
        x.sendResponseHeaders(status, cut ? 0 : bytes.length - from);
        try (OutputStream out = x.getResponseBody()) {
            long stop = bytes.length;
            if (cut) {
                stop = Math.min(stop, from + cutAfter);
            }
            long hold = holdAfter;
            for (long at = from; at < stop; ) {
                if (hold >= 0 && at >= hold && bytes.length > 4096) {
                    out.flush();
                    reachedHold.countDown();
                    try {
                        held.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    hold = -1;
                }
                int n = (int) Math.min(8192, stop - at);
                if (hold >= 0 && at < hold) {
                    n = (int) Math.min(n, hold - at);
                }
                out.write(bytes, (int) at, n);
                at += n;
            }
        }
    }

    /** A file layer's bytes, from a {@code Range}'s start (206) or whole (200). */
    private void fileStorage(StandInStorage.Request r, StandInStorage.Answer a) throws IOException {
        java.nio.file.Path file = files.get(r.path().substring("/blobs/".length()));
        if (file == null) {
            a.start(404, Map.of(), 0);
            return;
        }
        long size = java.nio.file.Files.size(file);
        long from = r.header("Range").filter(v -> v.startsWith("bytes=") && v.endsWith("-"))
                .map(v -> Long.parseLong(v.substring(6, v.length() - 1))).orElse(0L);
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put("Content-Type", "application/octet-stream");
        if (from > 0) {
            headers.put("Content-Range", "bytes " + from + "-" + (size - 1) + "/" + size);
        }
        a.start(from > 0 ? 206 : 200, headers, size - from);
        if (a.wantsBody()) {
            try (java.nio.channels.FileChannel f = StandInStorage.open(file)) {
                a.send(f, from, size - from);
            }
        }
    }

    /**
     * For scripts/bench-pull: serves each file named as {@code library/bench:latest}, {@code library/bench2:latest}...
     * (a model layer sent with {@code sendfile}), prints the registry's address, then the first blob's path (for curl),
     * and runs until killed.
     */
    public static void main(String[] args) throws Exception {
        StandInRegistry registry = start();
        String first = null;
        for (int i = 0; i < args.length; i++) {
            java.nio.file.Path file = java.nio.file.Path.of(args[i]);
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
                byte[] buffer = new byte[1 << 20];
                int n;
                while ((n = in.read(buffer)) > 0) {
                    md.update(buffer, 0, n);
                }
            }
            String hex = java.util.HexFormat.of().formatHex(md.digest());
            String name = "bench" + (i == 0 ? "" : Integer.toString(i + 1));
            registry.model("library/" + name + ":latest").layer("model", file, hex).publish();
            if (first == null) {
                first = "/v2/library/" + name + "/blobs/sha256:" + hex;
            }
        }
        System.out.println(registry.endpoint());
        System.out.println(first);
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        release();
        registry.stop(0);
        storage.stop(0);
        if (fileStorage != null) {
            fileStorage.close();
        }
    }
}
