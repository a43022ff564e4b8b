package io.rkllm.server.download;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.rkllm.llama.text.JsonString;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small Hugging Face Hub on loopback, for tests and the pull bench: the read endpoints a client needs, with the
 * Hub's shapes and headers, and the faults a real one shows.
 *
 * <ul>
 *   <li>{@code GET /api/models/OWNER/REPO[?blobs=true]} (and {@code .../revision/REV}): the commit, {@code gated},
 *       the files ({@code siblings}: {@code rfilename}; with {@code blobs=true} also {@code size}, {@code blobId}
 *       and for LFS files {@code lfs: {sha256, size, pointerSize}});</li>
 *   <li>{@code GET /api/models/OWNER/REPO/tree/REV[/PATH][?recursive=true]}: the files and folders, in pages linked
 *       by a {@code Link} header ({@link StandInTree}); {@code GET /api/models/OWNER/REPO/refs}: the branches and
 *       their commits (what llama.cpp asks before the tree);</li>
 *   <li>{@code GET /v2/OWNER/REPO/manifests/TAG}: the GGUF file a tag stands for, as llama.cpp or Ollama ask it, and
 *       {@code /v2/OWNER/REPO/blobs/sha256:HEX} ({@link StandInManifests});</li>
 *   <li>{@code GET|HEAD /OWNER/REPO/resolve/REV/FILE}: an LFS file is a 302 to the storage (a second server, another
 *       origin) with {@code X-Linked-Etag}, {@code X-Linked-Size} and {@code X-Repo-Commit}; a small file is answered
 *       directly, its {@code ETag} the Git blob id;</li>
 *   <li>the storage answers {@code GET /blobs/SHA256} with {@code Range: bytes=N-} as a 206, a file on disk sent
 *       with {@code sendfile} ({@link StandInStorage});</li>
 *   <li>errors as the Hub gives them: {@code X-Error-Code} {@code RepoNotFound} (401 without a token, as the Hub
 *       hides private repositories, 404 with one), {@code GatedRepo} (401), {@code EntryNotFound} (404).</li>
 * </ul>
 * Faults for tests: a transfer cut after N bytes or held there until released, one byte of a file changed, an HTML page
 * or an empty body instead of the listing or of a file, a storage that answers a status (a busy 503) a few times,
 * ranges ignored; {@link #close()} is a Hub gone. Every request is recorded.
 */
public final class StandInHub implements AutoCloseable {
    /** A request as the stand-in saw it. */
    public record Seen(String server, String method, String path, Optional<String> range, Optional<String> authorization) {
    }

    /** A file's bytes: in memory (the tests') or on disk (the bench's gigabyte). */
    record Blob(long size, String sha256, String gitSha1, boolean lfs, byte[] memory, Path file) {
        byte at(long offset) throws IOException {
            if (memory != null) {
                return memory[(int) offset];
            }
            try (FileChannel f = StandInStorage.open(file)) {
                ByteBuffer one = ByteBuffer.allocate(1);
                f.read(one, offset);
                return one.get(0);
            }
        }
    }

    /** Where a body's bytes go: the Hub's own answer (a small file) or the storage's socket. */
    private interface Sink {
        void send(Blob blob, long from, long count) throws IOException;

        void send(byte[] bytes) throws IOException;

        void flush() throws IOException;
    }

    static final class Repo {
        final String sha;
        final Map<String, Blob> files = new LinkedHashMap<>();
        boolean gated;

        Repo(String sha) {
            this.sha = sha;
        }
    }

    private final HttpServer hub;
    private final StandInStorage storage;
    private final Map<String, Repo> repos = new ConcurrentHashMap<>();
    private final Map<String, Blob> blobs = new ConcurrentHashMap<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final AtomicLong cutAfter = new AtomicLong(-1);
    private final AtomicInteger cuts = new AtomicInteger();
    private final Map<String, Long> corrupt = new ConcurrentHashMap<>();
    private volatile String listingFault = "";
    private volatile String downloadFault = "";
    private final AtomicInteger downloadFaults = new AtomicInteger();
    private final AtomicLong holdAfter = new AtomicLong(-1);
    private volatile java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(0);
    private final java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
    private volatile boolean ignoreRanges;
    private volatile String token = "hf_standin_token_0123456789abcdefghijklmnopq";
    private final AtomicInteger commits = new AtomicInteger();
    private volatile int treePageSize = 1000;

    private StandInHub() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        hub = HttpServer.create(new InetSocketAddress(loopback, 0), 64);
        hub.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        hub.createContext("/", this::hub);
        storage = new StandInStorage(this::storage);
        hub.start();
    }

    public static StandInHub start() {
        try {
            return new StandInHub();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What {@code HF_ENDPOINT} is set to. */
    public String endpoint() {
        return "http://127.0.0.1:" + hub.getAddress().getPort();
    }

    /** The token a gated repository accepts. */
    public String token() {
        return token;
    }

    /** A repository (created empty when new). */
    public RepoBuilder repo(String name) {
        Repo r = repos.computeIfAbsent(name, n -> new Repo(String.format(Locale.ROOT, "%040x",
                0xC0FFEEL + commits.incrementAndGet())));
        return new RepoBuilder(r);
    }

    /** Adds files to a repository. */
    public final class RepoBuilder {
        private final Repo repo;

        private RepoBuilder(Repo repo) {
            this.repo = repo;
        }

        /** A file with these bytes; model files ({@code .gguf}, {@code .rkllm}, {@code .rknn}) are in LFS. */
        public RepoBuilder file(String path, byte[] bytes) {
            String lower = path.toLowerCase(Locale.ROOT);
            boolean lfs = lower.endsWith(".gguf") || lower.endsWith(".rkllm") || lower.endsWith(".rknn");
            Blob blob = new Blob(bytes.length, hex("SHA-256", bytes), gitSha1(bytes), lfs, bytes.clone(), null);
            repo.files.put(path, blob);
            blobs.put(blob.sha256(), blob);
            return this;
        }

        /** A file served from disk (the bench's gigabyte), whose SHA-256 is given. */
        public RepoBuilder file(String path, Path source, String sha256) throws IOException {
            long size = Files.size(source);
            Blob blob = new Blob(size, sha256, "0".repeat(40), true, null, source);
            repo.files.put(path, blob);
            blobs.put(sha256, blob);
            return this;
        }

        /** Its files need the token. */
        public RepoBuilder gated() {
            repo.gated = true;
            return this;
        }
    }

    /** The next {@code times} transfers from the storage stop after {@code bytes} bytes. */
    public void cutTransfers(long bytes, int times) {
        cutAfter.set(bytes);
        cuts.set(times);
    }

    /**
     * The next transfer from the storage sends {@code bytes} bytes, then waits until {@link #release()} (a slow Hub,
     * for a download to be cancelled in the middle).
     */
    public void holdAfter(long bytes) {
        held = new java.util.concurrent.CountDownLatch(1);
        holdAfter.set(bytes);
    }

    /** Waits until a held transfer has sent its bytes and waits. */
    public void awaitHolding() throws InterruptedException {
        if (!holding.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new AssertionError("no transfer reached the hold");
        }
    }

    /** Lets a held transfer go on. */
    public void release() {
        held.countDown();
    }

    /** The storage serves this file with the byte at {@code offset} changed. */
    public void corrupt(String repo, String path, long offset) {
        corrupt.put(repos.get(repo).files.get(path).sha256(), offset);
    }

    /** The listing endpoint answers an HTML page ({@code "html"}) or an empty body ({@code "empty"}). */
    public void listingFault(String fault) {
        listingFault = fault;
    }

    /**
     * The next {@code times} downloads from the storage get this instead of the file: {@code "html"} (a captive
     * portal's sign-in page), {@code "empty"} (a 200 without a byte) or a status ({@code "503"}: a busy storage, which
     * says when to come back with {@code Retry-After: 0}, as it does for a 429).
     */
    public void downloadFault(String fault, int times) {
        downloadFault = fault;
        downloadFaults.set(times);
    }

    /** The tree listing gives at most {@code entries} entries a page (the Hub's pages are of 1000). */
    public void treePageSize(int entries) {
        treePageSize = entries;
    }

    /** The storage answers every request whole, ignoring {@code Range}. */
    public void ignoreRanges() {
        ignoreRanges = true;
    }

    /** Every request so far. */
    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** The storage's GETs so far (file downloads). */
    public List<Seen> downloads() {
        return seen.stream().filter(s -> s.server().equals("storage") && s.method().equals("GET")).toList();
    }

    @Override
    public void close() {
        hub.stop(0);
        storage.close();
    }

    // ---- the Hub

    private void hub(HttpExchange x) throws IOException {
        record(x, "hub");
        try (x) {
            String path = URLDecoder.decode(x.getRequestURI().getRawPath(), StandardCharsets.UTF_8);
            String query = Optional.ofNullable(x.getRequestURI().getRawQuery()).orElse("");
            if (path.startsWith("/api/models/")) {
                api(x, path.substring("/api/models/".length()), query);
            } else if (path.startsWith("/v2/")) {
                registry(x, path.substring("/v2/".length()));
            } else {
                resolve(x, path.substring(1));
            }
        }
    }

    private void api(HttpExchange x, String rest, String query) throws IOException {
        String[] parts = rest.split("/", 4);
        if (parts.length < 2) {
            send(x, 404, "application/json", "{\"error\":\"Not Found\"}");
            return;
        }
        String name = parts[0] + "/" + parts[1];
        Repo repo = repos.get(name);
        if (repo == null) {
            repoNotFound(x);
            return;
        }
        if (parts.length > 2 && parts[2].equals("refs")) {
            send(x, 200, "application/json; charset=utf-8", "{\"branches\":[{\"name\":\"main\",\"ref\":"
                    + "\"refs/heads/main\",\"targetCommit\":\"" + repo.sha + "\"}],\"converts\":[],\"tags\":[]}");
            return;
        }
        if (parts.length > 3 && parts[2].equals("tree")) {
            tree(x, name, repo, parts[3], query);
            return;
        }
        if (!listingFault.isEmpty()) {
            if (listingFault.equals("html")) {
                send(x, 200, "text/html; charset=utf-8", "<!doctype html><html><body>Sign in</body></html>");
            } else {
                send(x, 200, "application/json", "");
            }
            return;
        }
        StringBuilder json = new StringBuilder();
        boolean blobs = query.contains("blobs=true");
        json.append("{\"_id\":\"").append(repo.sha, 0, 24).append("\",\"id\":").append(JsonString.quote(name))
                .append(",\"modelId\":").append(JsonString.quote(name)).append(",\"sha\":\"").append(repo.sha)
                .append("\",\"private\":false,\"gated\":").append(repo.gated ? "\"manual\"" : "false")
                .append(",\"disabled\":false,\"siblings\":[");
        boolean first = true;
        for (var e : repo.files.entrySet()) {
            Blob b = e.getValue();
            json.append(first ? "" : ",").append("{\"rfilename\":").append(JsonString.quote(e.getKey()));
            if (blobs) {
                json.append(",\"blobId\":\"").append(b.gitSha1()).append("\",\"size\":").append(b.size());
                if (b.lfs()) {
                    json.append(",\"lfs\":{\"sha256\":\"").append(b.sha256()).append("\",\"size\":")
                            .append(b.size()).append(",\"pointerSize\":134}");
                }
            }
            json.append('}');
            first = false;
        }
        json.append("]}");
        send(x, 200, "application/json; charset=utf-8", json.toString());
    }

    /** {@code tree/REV[/PATH]}: {@link StandInTree}. */
    private void tree(HttpExchange x, String name, Repo repo, String revAndPath, String query) throws IOException {
        int slash = revAndPath.indexOf('/');
        String rev = slash < 0 ? revAndPath : revAndPath.substring(0, slash);
        String folder = slash < 0 ? "" : revAndPath.substring(slash + 1).replaceAll("/+$", "");
        if (!rev.equals("main") && !rev.equals(repo.sha)) {
            x.getResponseHeaders().set("X-Error-Code", "RevisionNotFound");
            send(x, 404, "application/json", "{\"error\":\"Invalid rev id: " + rev + "\"}");
            return;
        }
        if (!StandInTree.exists(repo.files, folder)) {
            x.getResponseHeaders().set("X-Error-Code", "EntryNotFound");
            send(x, 404, "application/json", "{\"error\":" + JsonString.quote(folder + " does not exist on \"" + rev + "\"") + "}");
            return;
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (String p : query.split("&")) {
            int eq = p.indexOf('=');
            if (eq > 0) {
                params.put(p.substring(0, eq), URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        int from;
        try {
            from = Integer.parseInt(params.getOrDefault("cursor", "0"));
        } catch (NumberFormatException e) {
            send(x, 400, "application/json", "{\"error\":\"Invalid cursor\"}");
            return;
        }
        // huggingface_hub sends recursive=True (a Python bool), llama.cpp recursive=true
        boolean recursive = params.getOrDefault("recursive", "false").equalsIgnoreCase("true");
        String base = endpoint() + "/api/models/" + name + "/tree/" + rev + (folder.isEmpty() ? "" : "/" + folder);
        StandInTree.Page page = StandInTree.page(repo.files, base, folder, recursive, from, treePageSize);
        page.next().ifPresent(next -> x.getResponseHeaders().set("Link", "<" + next + ">; rel=\"next\""));
        send(x, 200, "application/json; charset=utf-8", page.json());
    }

    /** {@code OWNER/REPO/manifests/TAG} and {@code OWNER/REPO/blobs/sha256:HEX}: {@link StandInManifests}. */
    private void registry(HttpExchange x, String rest) throws IOException {
        String[] parts = rest.split("/", 4);
        if (parts.length < 4 || !(parts[2].equals("manifests") || parts[2].equals("blobs"))) {
            send(x, 404, "application/json", "{\"error\":\"Not Found\"}");
            return;
        }
        Repo repo = repos.get(parts[0] + "/" + parts[1]);
        if (repo == null) {
            repoNotFound(x);
            return;
        }
        if (repo.gated && !authorised(x)) {
            gatedRefusal(x, parts[0] + "/" + parts[1]);
            return;
        }
        if (parts[2].equals("blobs")) {
            String hex = parts[3].replaceFirst("^sha256:", "");
            Optional<Blob> blob = repo.files.values().stream().filter(b -> b.sha256().equals(hex)).findFirst();
            if (blob.isPresent()) {
                redirect(x, repo, blob.get());
                return;
            }
            for (String tag : List.of("latest", "Q4_K_M", "Q8_0")) {
                Optional<StandInManifests.Choice> c = StandInManifests.choose(repo.files, tag);
                if (c.isPresent() && hex("SHA-256", StandInManifests.config(c.get()).getBytes(StandardCharsets.UTF_8))
                        .equals(hex)) {
                    send(x, 200, "application/octet-stream", StandInManifests.config(c.get()));
                    return;
                }
            }
            send(x, 404, "application/json", "{\"errors\":[{\"code\":\"BLOB_UNKNOWN\",\"message\":\"blob unknown\"}]}");
            return;
        }
        if (repo.files.keySet().stream().noneMatch(p -> p.toLowerCase(Locale.ROOT).endsWith(".gguf"))) {
            send(x, 400, "application/json", "{\"error\":\"Repository is not GGUF or is not compatible with llama.cpp\"}");
            return;
        }
        Optional<StandInManifests.Choice> choice = StandInManifests.choose(repo.files, parts[3]);
        if (choice.isEmpty()) {
            send(x, 400, "application/json", "{\"error\":\"The specified tag is not a valid quantization scheme."
                    + " Please use another tag or \\\"latest\\\"\"}");
            return;
        }
        String agent = Optional.ofNullable(x.getRequestHeaders().getFirst("User-Agent")).orElse("");
        if (agent.startsWith("llama-cpp")) {
            send(x, 200, "application/json; charset=utf-8", StandInManifests.llamaCpp(repo.files, choice.get()));
        } else {
            send(x, 200, "application/vnd.docker.distribution.manifest.v2+json",
                    StandInManifests.ollama(repo.files, choice.get()));
        }
    }

    private void resolve(HttpExchange x, String rest) throws IOException {
        // OWNER/REPO/resolve/REV/FILE
        String[] parts = rest.split("/", 5);
        if (parts.length < 5 || !parts[2].equals("resolve")) {
            send(x, 404, "text/plain", "Not Found");
            return;
        }
        Repo repo = repos.get(parts[0] + "/" + parts[1]);
        if (repo == null) {
            repoNotFound(x);
            return;
        }
        if (!parts[3].equals("main") && !parts[3].equals(repo.sha)) {
            x.getResponseHeaders().set("X-Error-Code", "RevisionNotFound");
            send(x, 404, "application/json", "{\"error\":\"Invalid rev id: " + parts[3] + "\"}");
            return;
        }
        if (repo.gated && !authorised(x)) {
            gatedRefusal(x, parts[0] + "/" + parts[1]);
            return;
        }
        Blob blob = repo.files.get(parts[4]);
        if (blob == null) {
            x.getResponseHeaders().set("X-Error-Code", "EntryNotFound");
            x.getResponseHeaders().set("X-Error-Message", "Entry not found");
            send(x, 404, "application/json", "{\"error\":\"Entry not found\"}");
            return;
        }
        Headers h = x.getResponseHeaders();
        if (blob.lfs()) {
            redirect(x, repo, blob);
            return;
        }
        h.set("X-Repo-Commit", repo.sha);
        h.set("ETag", "\"" + blob.gitSha1() + "\"");
        h.set("Content-Type", "application/octet-stream");
        if (x.getRequestMethod().equals("HEAD")) {
            x.sendResponseHeaders(200, -1);
            return;
        }
        x.sendResponseHeaders(200, blob.size());
        bytes(exchangeSink(x.getResponseBody()), blob, 0);
    }

    /** An LFS file's answer: a 302 to the storage, with what the file will be. */
    private void redirect(HttpExchange x, Repo repo, Blob blob) throws IOException {
        Headers h = x.getResponseHeaders();
        h.set("X-Repo-Commit", repo.sha);
        h.set("X-Linked-Etag", "\"" + blob.sha256() + "\"");
        h.set("X-Linked-Size", Long.toString(blob.size()));
        h.set("ETag", "\"" + blob.gitSha1() + "\"");
        h.set("Location", "http://127.0.0.1:" + storage.port() + "/blobs/" + blob.sha256()
                + "?X-Amz-Expires=3600&response-content-disposition=attachment");
        x.sendResponseHeaders(302, -1);
    }

    private static void gatedRefusal(HttpExchange x, String name) throws IOException {
        x.getResponseHeaders().set("X-Error-Code", "GatedRepo");
        x.getResponseHeaders().set("X-Error-Message", "Access to model " + name
                + " is restricted. You must have access to it and be authenticated to access it. Please log in.");
        send(x, 401, "application/json", "{\"error\":\"Access to model is restricted\"}");
    }

    private void repoNotFound(HttpExchange x) throws IOException {
        x.getResponseHeaders().set("X-Error-Code", "RepoNotFound");
        x.getResponseHeaders().set("X-Error-Message", "Repository not found");
        // the Hub answers 401 to anonymous requests for repositories it does not show, 404 to authenticated ones
        send(x, authorised(x) ? 404 : 401, "application/json", "{\"error\":\"Repository not found\"}");
    }

    private boolean authorised(HttpExchange x) {
        return ("Bearer " + token).equals(x.getRequestHeaders().getFirst("Authorization"));
    }

    // ---- the storage

    private void storage(StandInStorage.Request r, StandInStorage.Answer a) throws IOException {
        seen.add(new Seen("storage", r.method(), r.path(), r.header("Range"), r.header("Authorization")));
        Blob blob = r.path().startsWith("/blobs/") ? blobs.get(r.path().substring(7)) : null;
        if (blob == null) {
            byte[] error = "<Error><Code>NoSuchKey</Code></Error>".getBytes(StandardCharsets.UTF_8);
            a.start(404, Map.of("Content-Type", "application/xml"), error.length);
            if (a.wantsBody()) {
                a.send(error, 0, error.length);
            }
            return;
        }
        if (downloadFaults.get() > 0 && downloadFaults.getAndDecrement() > 0) {
            fault(a, downloadFault);
            return;
        }
        long from = 0;
        Optional<String> range = r.header("Range");
        if (range.isPresent() && !ignoreRanges && range.get().startsWith("bytes=") && range.get().endsWith("-")) {
            from = Long.parseLong(range.get().substring(6, range.get().length() - 1));
            if (from >= blob.size()) {
                a.start(416, Map.of("Content-Range", "bytes */" + blob.size()), 0);
                return;
            }
        }
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", "application/octet-stream");
        h.put("Accept-Ranges", "bytes");
        if (from > 0) {
            h.put("Content-Range", "bytes " + from + "-" + (blob.size() - 1) + "/" + blob.size());
        }
        a.start(from > 0 ? 206 : 200, h, blob.size() - from);
        if (a.wantsBody()) {
            bytes(storageSink(a), blob, from);
        }
    }

    /** A download's answer instead of the file's bytes ({@link #downloadFault}). */
    private static void fault(StandInStorage.Answer a, String fault) throws IOException {
        int status = fault.matches("\\d{3}") ? Integer.parseInt(fault) : 200;
        Map<String, String> h = new LinkedHashMap<>();
        byte[] body;
        if (fault.equals("html")) {
            h.put("Content-Type", "text/html; charset=utf-8");
            body = "<!doctype html><html><body>Sign in to use this Wi-Fi</body></html>".getBytes(StandardCharsets.UTF_8);
        } else if (status == 200) {
            h.put("Content-Type", "application/octet-stream");
            body = new byte[0];
        } else {
            h.put("Content-Type", "text/plain");
            if (status == 429 || status == 503) {
                h.put("Retry-After", "0");
            }
            body = ("stand-in fault " + status).getBytes(StandardCharsets.UTF_8);
        }
        a.start(status, h, body.length);
        if (a.wantsBody()) {
            a.send(body, 0, body.length);
        }
    }

    /**
     * The blob's bytes from {@code from} to its end, with the faults asked for: a cut (the connection ends before the
     * announced length), a hold, a changed byte.
     */
    private void bytes(Sink out, Blob blob, long from) throws IOException {
        long end = blob.size();
        long limit = end;
        if (cuts.get() > 0 && cuts.getAndDecrement() > 0) {
            limit = Math.min(limit, from + cutAfter.get());
        }
        Long flip = corrupt.get(blob.sha256());
        long hold = holdAfter.getAndSet(-1);
        long at = from;
        if (hold >= 0 && from + hold <= limit) {
            at = piece(out, blob, at, from + hold, flip);
            out.flush();
            holding.countDown();
            awaitRelease();
        }
        piece(out, blob, at, limit, flip);
        if (limit < end) {
            out.flush();
            throw new IOException("cut by the stand-in Hub");
        }
    }

    /** The bytes from {@code at} to {@code to}, the one at {@code flip} changed if it is among them. */
    private static long piece(Sink out, Blob blob, long at, long to, Long flip) throws IOException {
        if (flip != null && flip >= at && flip < to) {
            out.send(blob, at, flip - at);
            out.send(new byte[] {(byte) (blob.at(flip) ^ 0x5A)});
            out.send(blob, flip + 1, to - flip - 1);
        } else {
            out.send(blob, at, to - at);
        }
        return to;
    }

    private static Sink exchangeSink(OutputStream out) {
        return new Sink() {
            @Override
            public void send(Blob blob, long from, long count) throws IOException {
                if (blob.memory() != null) {
                    out.write(blob.memory(), (int) from, (int) count);
                    return;
                }
                try (FileChannel f = StandInStorage.open(blob.file())) {
                    ByteBuffer buffer = ByteBuffer.allocate(256 * 1024);
                    for (long at = from; at < from + count; ) {
                        buffer.clear().limit((int) Math.min(buffer.capacity(), from + count - at));
                        int n = f.read(buffer, at);
                        if (n < 0) {
                            throw new IOException("the file ended at " + at);
                        }
                        out.write(buffer.array(), 0, n);
                        at += n;
                    }
                }
            }

            @Override
            public void send(byte[] bytes) throws IOException {
                out.write(bytes);
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }
        };
    }

    private static Sink storageSink(StandInStorage.Answer a) {
        return new Sink() {
            @Override
            public void send(Blob blob, long from, long count) throws IOException {
                if (blob.memory() != null) {
                    a.send(blob.memory(), (int) from, (int) count);
                    return;
                }
                try (FileChannel f = StandInStorage.open(blob.file())) {
                    a.send(f, from, count);
                }
            }

            @Override
            public void send(byte[] bytes) throws IOException {
                a.send(bytes, 0, bytes.length);
            }

            @Override
            public void flush() {
                // every write goes straight to the socket
            }
        };
    }

    private void awaitRelease() throws IOException {
        try {
            if (!held.await(120, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IOException("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private void record(HttpExchange x, String server) {
        Headers h = x.getRequestHeaders();
        seen.add(new Seen(server, x.getRequestMethod(), x.getRequestURI().getRawPath(),
                Optional.ofNullable(h.getFirst("Range")), Optional.ofNullable(h.getFirst("Authorization"))));
    }

    private static void send(HttpExchange x, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            x.getResponseBody().write(bytes);
        }
    }

    static String hex(String algorithm, byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String gitSha1(byte[] bytes) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-1");
            md.update(("blob " + bytes.length + "\0").getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(md.digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Serves files from disk for the pull bench (scripts/bench-pull): {@code java -cp server/target/test-classes
     * io.rkllm.server.download.StandInHub FILE...}, the first as {@code bench/model-GGUF}'s {@code model-Q4_K_M.gguf},
     * the others as {@code bench/model2-GGUF}, {@code bench/model3-GGUF}, ...; prints the endpoint, then waits.
     */
    public static void main(String[] args) throws Exception {
        StandInHub hub = start();
        for (int i = 0; i < args.length; i++) {
            Path file = Path.of(args[i]);
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            try (InputStream in = Files.newInputStream(file)) {
                byte[] buffer = new byte[1 << 20];
                int n;
                while ((n = in.read(buffer)) > 0) {
                    md.update(buffer, 0, n);
                }
            }
            hub.repo("bench/model" + (i == 0 ? "" : Integer.toString(i + 1)) + "-GGUF").file("model-Q4_K_M.gguf", file,
                    HexFormat.of().formatHex(md.digest()));
        }
        System.out.println(hub.endpoint());
        System.out.flush();
        new java.util.concurrent.CountDownLatch(1).await();
    }
}
