package io.rkllm.server.download;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The Hub's read API, as much of it as a pull needs (what huggingface_hub's {@code model_info(files_metadata=True)}
 * and {@code hf_hub_download} ask): {@code GET /api/models/OWNER/REPO?blobs=true} lists the commit and every file with
 * its size and digest; {@code GET /OWNER/REPO/resolve/REV/FILE} answers with a redirect to the file's storage
 * ({@code X-Linked-Etag} and {@code X-Linked-Size} say what it will be), where the bytes are read, from an offset
 * with a {@code Range} request. The token goes to the Hub only, not to the storage it redirects to. Every answer the
 * Hub should not give (HTML, an empty body, a missing field) is a {@link PullException.Kind#BAD_GATEWAY} naming
 * {@code HF_ENDPOINT}, every refusal a {@link PullException} of its kind.
 */
public final class HubClient implements AutoCloseable {
    private static final Duration API_TIMEOUT = Duration.ofSeconds(30);
    private static final int MAX_REDIRECTS = 10;
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final Hub hub;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();

    public HubClient(Hub hub) {
        // HTTP/1.1: one stream per download, no HTTP/2 flow-control window between the socket and the disk
        this(hub, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(15)).build());
    }

    HubClient(Hub hub, HttpClient http) {
        this.hub = hub;
        this.http = http;
    }

    public Hub hub() {
        return hub;
    }

    /** Ends the client's connections (a pull's client lives as long as the pull). */
    @Override
    public void close() {
        http.shutdownNow();
    }

    /** The repository's files at the revision named, with sizes and digests. */
    public RepoListing listing(ModelName name) throws PullException {
        String url = hub.endpoint() + "/api/models/" + name.repo()
                + (name.revision().equals("main") ? "" : "/revision/" + segment(name.revision())) + "?blobs=true";
        HttpResponse<InputStream> response = send(request(URI.create(url), true).timeout(API_TIMEOUT)
                .header("Accept", "application/json").GET().build(), name.repo());
        JsonNode info;
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                throw refusal(response.statusCode(), response.headers(), readError(body), name.repo(),
                        Optional.empty(), false);
            }
            byte[] bytes = body.readNBytes(64 * 1024 * 1024);
            info = parseJson(bytes, response.headers().firstValue("Content-Type").orElse(""), "the listing of "
                    + name.repo());
        } catch (IOException e) {
            throw unreachable(e);
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
     */
    public Body open(RepoListing repo, HubFile file, long offset) throws PullException {
        URI uri = URI.create(hub.endpoint() + "/" + repo.repo() + "/resolve/" + repo.revision() + "/" + path(file.path()));
        URI hubOrigin = URI.create(hub.endpoint());
        boolean ranged = offset > 0;
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
            HttpRequest.Builder request = request(uri, sameOrigin(uri, hubOrigin)).GET();
            if (ranged) {
                request.header("Range", "bytes=" + offset + "-");
            }
            HttpResponse<InputStream> response = send(request.build(), repo.repo());
            int status = response.statusCode();
            var headers = response.headers();
            if (status >= 300 && status < 400) {
                close(response.body());
                checkLinked(headers, file);
                Optional<String> location = headers.firstValue("Location");
                if (location.isEmpty()) {
                    throw notAHub("a redirect without a Location for " + file.path());
                }
                uri = uri.resolve(location.get());
                continue;
            }
            if (status == 416 && ranged) {
                close(response.body());
                ranged = false; // what we hold is not a prefix the storage recognises: start again
                continue;
            }
            if (status != 200 && status != 206) {
                String error;
                try (InputStream body = response.body()) {
                    error = readError(body);
                } catch (IOException e) {
                    error = "";
                }
                throw refusal(status, headers, error, repo.repo(), Optional.of(file.path()), repo.gated());
            }
            checkLinked(headers, file);
            long start = status == 206 ? offset : 0;
            String type = headers.firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT);
            if (type.startsWith("text/html") && !file.path().toLowerCase(Locale.ROOT).endsWith(".html")) {
                close(response.body());
                throw notAHub("an HTML page instead of " + file.path());
            }
            OptionalLong length = headers.firstValueAsLong("Content-Length");
            if (length.isPresent() && start + length.getAsLong() != file.size()) {
                close(response.body());
                throw notAHub(file.path() + " of " + (start + length.getAsLong()) + " bytes where the listing says "
                        + file.size());
            }
            return new Body(response.body(), start);
        }
        throw notAHub("more than " + MAX_REDIRECTS + " redirects for " + file.path());
    }

    /**
     * A file's bytes as they arrive.
     *
     * @param stream the bytes, from {@code start}; closing it before the end cuts the connection
     * @param start  the offset of its first byte in the file
     */
    public record Body(InputStream stream, long start) implements AutoCloseable {
        @Override
        public void close() {
            HubClient.close(stream);
        }
    }

    /** The size and digest the resolve step announces must be the listing's (a listing and a file of one commit). */
    private void checkLinked(java.net.http.HttpHeaders headers, HubFile file) throws PullException {
        OptionalLong size = headers.firstValueAsLong("X-Linked-Size");
        if (size.isPresent() && size.getAsLong() != file.size()) {
            throw notAHub("X-Linked-Size " + size.getAsLong() + " for " + file.path() + " where the listing says "
                    + file.size());
        }
        Optional<String> etag = headers.firstValue("X-Linked-Etag").or(() -> headers.firstValue("ETag"))
                .map(e -> e.replaceFirst("^W/", "").replace("\"", "").toLowerCase(Locale.ROOT));
        if (etag.isPresent() && etag.get().matches("[0-9a-f]{64}") && file.digest().kind() == Digest.Kind.SHA256
                && !etag.get().equals(file.digest().hex())) {
            throw notAHub("the digest " + etag.get() + " for " + file.path() + " where the listing says "
                    + file.digest().hex());
        }
    }

    private HttpRequest.Builder request(URI uri, boolean withToken) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("User-Agent", hub.userAgent());
        if (withToken) {
            hub.token().ifPresent(t -> b.header("Authorization", "Bearer " + t));
        }
        return b;
    }

    private HttpResponse<InputStream> send(HttpRequest request, String repo) throws PullException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PullException(PullException.Kind.CANCELLED, "the pull of " + repo + " was interrupted");
        }
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
        String why = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
        return new PullException(PullException.Kind.BAD_GATEWAY, "cannot reach the Hub at " + hub.endpoint() + ": "
                + why + (hub.endpoint().equals(Hub.DEFAULT_ENDPOINT) ? "" : " (HF_ENDPOINT)"), e);
    }

    /** A refusal of the Hub, by its status and {@code X-Error-Code}, in words that say what to do. */
    private PullException refusal(int status, java.net.http.HttpHeaders headers, String error, String repo,
                                  Optional<String> file, boolean gated) {
        String code = headers.firstValue("X-Error-Code").orElse("");
        String said = headers.firstValue("X-Error-Message").orElse(error).strip();
        String token = hub.token().isPresent() ? "HF_TOKEN" : "";
        if (code.equals("RepoNotFound") || (status == 404 && file.isEmpty() && !code.equals("RevisionNotFound"))) {
            return new PullException(PullException.Kind.NOT_FOUND, "no repository " + repo + " on " + hub.endpoint()
                    + (token.isEmpty() ? " (a private one needs HF_TOKEN)" : " that HF_TOKEN may read"));
        }
        if (code.equals("GatedRepo") || ((status == 401 || status == 403) && gated)) {
            return gatedRefusal(repo);
        }
        if (status == 401 || status == 403) {
            return new PullException(PullException.Kind.UNAUTHORIZED, "the Hub refused " + repo
                    + file.map(f -> "/" + f).orElse("") + " (" + status + (said.isEmpty() ? "" : ": " + said) + ")"
                    + (token.isEmpty() ? ": set HF_TOKEN to a token of an account that may read it"
                            : ": HF_TOKEN may not read it"));
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

    private static String readError(InputStream body) throws IOException {
        String text = new String(body.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8).strip();
        if (text.startsWith("{")) {
            try {
                JsonNode node = new ObjectMapper().readTree(text);
                if (node.path("error").isTextual()) {
                    return node.path("error").asText();
                }
            } catch (IOException e) {
                return "";
            }
        }
        return text.startsWith("<") ? "" : text.lines().findFirst().orElse("");
    }

    static void close(InputStream stream) {
        try {
            stream.close();
        } catch (IOException e) {
            // the connection is dropped either way
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
