package io.rkllm.server.download;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Hub's read API, as much of it as a pull needs (what huggingface_hub's {@code model_info(files_metadata=True)}
 * and {@code hf_hub_download} ask): {@code GET /api/models/OWNER/REPO?blobs=true} lists the commit and every file with
 * its size and digest; {@code GET /OWNER/REPO/resolve/REV/FILE} answers with a redirect to the file's storage
 * ({@code X-Linked-Etag} and {@code X-Linked-Size} say what it will be), where the bytes are read, from an offset
 * with a {@code Range} request. The token goes to the Hub only, not to the storage it redirects to. Every answer the
 * Hub should not give (HTML, an empty body, a missing field) is a {@link PullException.Kind#BAD_GATEWAY} naming
 * {@code HF_ENDPOINT}, every refusal a {@link PullException} of its kind; a file's request that finds the Hub or its
 * storage out of reach, or told to ask later (a 5xx, 429), is a {@link HubUnavailable}, which the transfer asks again.
 *
 * <p>Not the Hub's other ways to the same answer: {@code /api/models/OWNER/REPO/tree/REV?recursive=true} (what
 * llama.cpp lists now, after {@code /refs} for the commit) gives the same files, sub-folders included, in two
 * requests and pages where the listing is one; {@code /v2/OWNER/REPO/manifests/TAG} names the file of a tag only in
 * the JSON form the Hub keeps for a User-Agent starting with {@code llama-cpp} (others get an Ollama image manifest
 * of digests without names), and llama.cpp itself has left it for the listing. The tag is matched here, against the
 * listing, as llama.cpp matches it ({@link GgufChoice}).
 *
 * <p>The JDK's {@link HttpURLConnection}, not its {@code HttpClient}: a body is read on the calling thread straight
 * from the socket into the caller's buffer, without a buffer allocated per chunk and handed between threads, which
 * on loopback made the HttpClient's stream a fifth of curl's speed and its heap grow by hundreds of MB per GB
 * (scripts/bench-pull); and its read timeout is the stall detection a transfer needs.
 */
public final class HubClient {
    private static final int MAX_REDIRECTS = 10;
    private static final int MAX_ERROR_BODY = 64 * 1024;
    private static final int MAX_LISTING = 64 * 1024 * 1024;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);

    private final Hub hub;
    private final Duration readTimeout;
    private final ObjectMapper json = new ObjectMapper();

    /** @param readTimeout a connection that gets no byte for this long fails (a stalled transfer, a silent Hub) */
    public HubClient(Hub hub, Duration readTimeout) {
        this.hub = hub;
        this.readTimeout = readTimeout;
    }

    public Hub hub() {
        return hub;
    }

    /** The repository's files at the revision named, with sizes and digests. */
    public RepoListing listing(ModelName name) throws PullException {
        String url = hub.endpoint() + "/api/models/" + name.repo()
                + (name.revision().equals("main") ? "" : "/revision/" + segment(name.revision())) + "?blobs=true";
        HttpURLConnection c = connect(URI.create(url), true, "application/json", 0, name.repo());
        JsonNode info;
        try {
            int status = c.getResponseCode();
            if (status != 200) {
                throw refusal(status, c, readError(c), name.repo(), Optional.empty(), false);
            }
            byte[] bytes;
            try (InputStream body = c.getInputStream()) {
                bytes = body.readNBytes(MAX_LISTING);
            }
            info = parseJson(bytes, Optional.ofNullable(c.getContentType()).orElse(""), "the listing of " + name.repo());
        } catch (IOException e) {
            throw unreachable(e);
        } finally {
            c.disconnect();
        }
        JsonNode siblings = info.path("siblings");
        String sha = info.path("sha").asText("");
        if (!siblings.isArray() || !sha.matches("[0-9a-fA-F]{40}")) {
            throw notAHub("the listing of " + name.repo() + " has no " + (siblings.isArray() ? "commit (sha)"
                    : "files (siblings)"));
        }
        JsonNode gated = info.path("gated");
        boolean isGated = gated.isTextual() ? !gated.asText().equalsIgnoreCase("false") : gated.asBoolean(false);
        List<HubFile> files = new ArrayList<>();
        for (JsonNode s : siblings) {
            String path = s.path("rfilename").asText("");
            if (path.isEmpty() || path.startsWith("/") || path.contains("\\") || List.of(path.split("/", -1))
                    .stream().anyMatch(p -> p.isEmpty() || p.equals(".") || p.equals(".."))) {
                continue; // never a path that could leave the folder it is written to
            }
            JsonNode lfs = s.path("lfs");
            JsonNode size = lfs.isObject() ? lfs.path("size") : s.path("size");
            String digest = lfs.isObject() ? lfs.path("sha256").asText(lfs.path("oid").asText(""))
                    : s.path("blobId").asText("");
            if (!size.canConvertToLong() || size.asLong() < 0) {
                throw notAHub("the listing of " + name.repo() + " gives no size for " + path);
            }
            try {
                files.add(new HubFile(path, size.asLong(), lfs.isObject() ? Digest.sha256(digest)
                        : Digest.gitBlob(digest)));
            } catch (IllegalArgumentException e) {
                throw notAHub("the listing of " + name.repo() + " gives no digest for " + path);
            }
        }
        return new RepoListing(name.repo(), sha.toLowerCase(Locale.ROOT), isGated, files);
    }

    /**
     * The file's bytes from {@code offset}, following the Hub's redirect to its storage. The answer may start at 0
     * instead (a storage that ignores ranges): {@link Body#start()} says where it does.
     *
     * @throws HubUnavailable the Hub or its storage cannot be reached, or answers to ask later: worth another attempt
     * @throws PullException  a refusal, or an answer that is not the file: asking again would not change it
     */
    public Body open(RepoListing repo, HubFile file, long offset) throws PullException, HubUnavailable {
        URI uri = URI.create(hub.endpoint() + "/" + repo.repo() + "/resolve/" + repo.revision() + "/"
                + path(file.path()));
        URI hubOrigin = URI.create(hub.endpoint());
        boolean ranged = offset > 0;
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
            HttpURLConnection c = connect(uri, sameOrigin(uri, hubOrigin), "*/*", ranged ? offset : 0, repo.repo());
            try {
                int status = c.getResponseCode();
                if (status >= 300 && status < 400) {
                    checkLinked(c, file);
                    String location = c.getHeaderField("Location");
                    if (location == null) {
                        throw notAHub("a redirect without a Location for " + file.path());
                    }
                    uri = uri.resolve(location);
                    drain(c);
                    continue;
                }
                if (status == 416 && ranged) {
                    drain(c);
                    ranged = false; // what we hold is not a prefix the storage recognises: start again
                    continue;
                }
                if (status == 408 || status == 429 || status >= 500) {
                    String said = Optional.ofNullable(c.getHeaderField("X-Error-Message")).orElse(readError(c))
                            .strip();
                    throw new HubUnavailable(origin(uri, hubOrigin) + " answered " + status
                            + (said.isEmpty() ? "" : " (" + said + ")") + " for " + file.path(),
                            Backoff.retryAfter(c.getHeaderField("Retry-After")), null);
                }
                if (status != 200 && status != 206) {
                    throw refusal(status, c, readError(c), repo.repo(), Optional.of(file.path()), repo.gated());
                }
                checkLinked(c, file);
                long start = status == 206 ? offset : 0;
                String type = Optional.ofNullable(c.getContentType()).orElse("").toLowerCase(Locale.ROOT);
                if (type.startsWith("text/html") && !file.path().toLowerCase(Locale.ROOT).endsWith(".html")) {
                    throw notAHub("an HTML page instead of " + file.path());
                }
                long length = c.getContentLengthLong();
                if (length == 0 && start < file.size()) {
                    throw notAHub("an empty body instead of " + file.path());
                }
                if (length >= 0 && start + length != file.size()) {
                    throw notAHub(file.path() + " of " + (start + length) + " bytes where the listing says "
                            + file.size());
                }
                HttpURLConnection open = c;
                c = null;
                return new Body(open.getInputStream(), start, open);
            } catch (IOException e) {
                // no HF_ENDPOINT hint, unlike the listing's: the listing came from the same Hub a moment ago
                throw new HubUnavailable("cannot reach " + origin(uri, hubOrigin) + ": " + why(e), Optional.empty(),
                        e);
            } finally {
                if (c != null) {
                    c.disconnect();
                }
            }
        }
        throw notAHub("more than " + MAX_REDIRECTS + " redirects for " + file.path());
    }

    /**
     * A file's bytes as they arrive.
     *
     * @param stream the bytes, from {@code start}; a read that waits longer than the read timeout fails
     * @param start  the offset of its first byte in the file
     */
    public record Body(InputStream stream, long start, HttpURLConnection connection) implements AutoCloseable {
        /** Closes the stream; one not read to its end drops its connection. */
        @Override
        public void close() {
            try {
                stream.close();
            } catch (IOException e) {
                connection.disconnect();
            }
        }
    }

    private HttpURLConnection connect(URI uri, boolean withToken, String accept, long from, String repo)
            throws PullException {
        try {
            HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
            c.setInstanceFollowRedirects(false); // a redirect to the storage must not carry the token
            c.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
            c.setReadTimeout((int) Math.min(Integer.MAX_VALUE, readTimeout.toMillis()));
            c.setUseCaches(false);
            c.setRequestProperty("User-Agent", hub.userAgent());
            c.setRequestProperty("Accept", accept);
            c.setRequestProperty("Accept-Encoding", "identity");
            if (withToken) {
                hub.token().ifPresent(t -> c.setRequestProperty("Authorization", "Bearer " + t));
            }
            if (from > 0) {
                c.setRequestProperty("Range", "bytes=" + from + "-");
            }
            return c;
        } catch (IOException | IllegalArgumentException e) {
            throw new PullException(PullException.Kind.BAD_GATEWAY, "cannot ask the Hub at " + hub.endpoint()
                    + " for " + repo + ": " + e.getMessage());
        }
    }

    /** The size and digest the resolve step announces must be the listing's (a listing and a file of one commit). */
    private void checkLinked(HttpURLConnection c, HubFile file) throws PullException {
        String size = c.getHeaderField("X-Linked-Size");
        if (size != null && size.strip().matches("\\d+") && Long.parseLong(size.strip()) != file.size()) {
            throw notAHub("X-Linked-Size " + size.strip() + " for " + file.path() + " where the listing says "
                    + file.size());
        }
        String etag = Optional.ofNullable(c.getHeaderField("X-Linked-Etag")).orElse(c.getHeaderField("ETag"));
        if (etag != null) {
            String hex = etag.replaceFirst("^W/", "").replace("\"", "").toLowerCase(Locale.ROOT);
            if (hex.matches("[0-9a-f]{64}") && file.digest().kind() == Digest.Kind.SHA256
                    && !hex.equals(file.digest().hex())) {
                throw notAHub("the digest " + hex + " for " + file.path() + " where the listing says "
                        + file.digest().hex());
            }
        }
    }

    /** Who did not answer: the Hub, or the storage it redirected to (another host, whose failure is not the Hub's). */
    private String origin(URI uri, URI hubOrigin) {
        return sameOrigin(uri, hubOrigin) ? "the Hub at " + hub.endpoint()
                : "the Hub's storage at " + uri.getScheme() + "://" + uri.getRawAuthority();
    }

    private static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    private static int port(URI u) {
        return u.getPort() >= 0 ? u.getPort() : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    private JsonNode parseJson(byte[] bytes, String contentType, String what) throws PullException {
        if (bytes.length == 0) {
            throw notAHub("an empty body for " + what);
        }
        JsonNode node;
        try {
            node = json.readTree(bytes);
        } catch (IOException e) {
            node = null;
        }
        if (node == null || !node.isObject()) {
            String kind = contentType.toLowerCase(Locale.ROOT).contains("html") ? "an HTML page"
                    : "something else than JSON" + (contentType.isEmpty() ? "" : " (" + contentType + ")");
            throw notAHub(kind + " for " + what);
        }
        return node;
    }

    private PullException notAHub(String what) {
        return new PullException(PullException.Kind.BAD_GATEWAY, "the Hub at " + hub.endpoint() + " answered " + what
                + (hub.endpoint().equals(Hub.DEFAULT_ENDPOINT) ? "" : "; is HF_ENDPOINT a Hugging Face Hub?"));
    }

    private PullException unreachable(IOException e) {
        return new PullException(PullException.Kind.BAD_GATEWAY, "cannot reach the Hub at " + hub.endpoint() + ": "
                + why(e) + (hub.endpoint().equals(Hub.DEFAULT_ENDPOINT) ? "" : " (HF_ENDPOINT)"), e);
    }

    static String why(IOException e) {
        if (e instanceof java.net.UnknownHostException) {
            // the JDK's message is the bare host name, which says nothing to a user offline
            return "the name " + e.getMessage() + " does not resolve (no network, or no DNS)";
        }
        return e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** A refusal of the Hub, by its status and {@code X-Error-Code}, in words that say what to do. */
    private PullException refusal(int status, HttpURLConnection c, String error, String repo, Optional<String> file,
                                  boolean gated) {
        String code = Optional.ofNullable(c.getHeaderField("X-Error-Code")).orElse("");
        String said = Optional.ofNullable(c.getHeaderField("X-Error-Message")).orElse(error).strip();
        boolean token = hub.token().isPresent();
        if (code.equals("RepoNotFound") || (status == 404 && file.isEmpty() && !code.equals("RevisionNotFound"))) {
            return new PullException(PullException.Kind.NOT_FOUND, "no repository " + repo + " on " + hub.endpoint()
                    + (token ? " that HF_TOKEN may read" : " (a private one needs HF_TOKEN)"));
        }
        if (code.equals("GatedRepo") || ((status == 401 || status == 403) && gated)) {
            return gatedRefusal(repo);
        }
        if (status == 401 || status == 403) {
            return new PullException(PullException.Kind.UNAUTHORIZED, "the Hub refused " + repo
                    + file.map(f -> "/" + f).orElse("") + " (" + status + (said.isEmpty() ? "" : ": " + said) + ")"
                    + (token ? ": HF_TOKEN may not read it" : ": set HF_TOKEN to a token of an account that may read it"));
        }
        if (status == 404 && code.equals("RevisionNotFound")) {
            return new PullException(PullException.Kind.NOT_FOUND, "no such revision in " + repo);
        }
        if (status == 404) {
            return new PullException(PullException.Kind.NOT_FOUND, "no file " + file.orElse("") + " in " + repo);
        }
        return notAHub(status + (said.isEmpty() ? "" : " (" + said + ")") + " for " + repo + file.map(f -> "/" + f)
                .orElse(""));
    }

    /** A gated repository this request may not read: the token, and the terms to accept. */
    PullException gatedRefusal(String repo) {
        return new PullException(PullException.Kind.UNAUTHORIZED, repo + " is gated: accept its terms at "
                + hub.page(repo) + (hub.token().isPresent() ? " with the account of HF_TOKEN"
                        : " and set HF_TOKEN to a token of that account (" + hub.endpoint()
                        + "/settings/tokens, read access)"));
    }

    /** The error an answer's body states (a JSON {@code error}, or its first line of text), if any. */
    private String readError(HttpURLConnection c) {
        try (InputStream body = c.getErrorStream()) {
            if (body == null) {
                return "";
            }
            String text = new String(body.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8).strip();
            if (text.startsWith("{")) {
                JsonNode node = json.readTree(text);
                return node.path("error").isTextual() ? node.path("error").asText() : "";
            }
            return text.startsWith("<") ? "" : text.lines().findFirst().orElse("");
        } catch (IOException e) {
            return "";
        }
    }

    /** Reads what is left of a short answer, so that its connection can carry the next request. */
    private static void drain(HttpURLConnection c) {
        try (InputStream in = c.getResponseCode() >= 400 ? c.getErrorStream() : c.getInputStream()) {
            if (in != null) {
                in.readNBytes(MAX_ERROR_BODY);
            }
        } catch (IOException e) {
            c.disconnect();
        }
    }

    private static String segment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String path(String p) {
        StringBuilder out = new StringBuilder();
        for (String s : p.split("/")) {
            if (!out.isEmpty()) {
                out.append('/');
            }
            out.append(segment(s));
        }
        return out.toString();
    }
}
