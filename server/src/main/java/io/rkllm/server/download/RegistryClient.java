package io.rkllm.server.download;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An Ollama registry, as {@code ollama pull} speaks to it (its {@code server/images.go} and {@code download.go}):
 * {@code GET /v2/NAMESPACE/MODEL/manifests/TAG} with the Docker manifest's {@code Accept} gives the model's layers by
 * media type and digest; {@code GET /v2/NAMESPACE/MODEL/blobs/sha256:HEX} answers with a redirect to its storage,
 * where the bytes are read, from an offset with a {@code Range} request. A registry that asks for a token
 * ({@code 401} with a {@code Bearer} challenge) gets one from its realm, on its own host only, and the token goes to
 * the registry, not to the storage. A manifest the registry does not have is Ollama's own words,
 * {@value #NOT_FOUND}.
 */
final class RegistryClient {
    /** What Ollama says of a model its registry does not have (its CLI matches these words). */
    static final String NOT_FOUND = "pull model manifest: file does not exist";
    static final String MANIFEST_TYPE = "application/vnd.docker.distribution.manifest.v2+json";
    private static final int MAX_REDIRECTS = 10;
    private static final int MAX_MANIFEST = 4 * 1024 * 1024;
    private static final int MAX_ERROR_BODY = 64 * 1024;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);
    private static final Pattern CHALLENGE = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final String endpoint;
    private final String userAgent;
    private final Duration readTimeout;
    private final ObjectMapper json = new ObjectMapper();
    private Optional<String> token = Optional.empty();

    /**
     * @param endpoint the registry's address ({@code https://registry.ollama.ai}), without a trailing slash
     * @param readTimeout a connection that gets no byte for this long fails
     */
    RegistryClient(String endpoint, String userAgent, Duration readTimeout) {
        this.endpoint = endpoint;
        this.userAgent = userAgent;
        this.readTimeout = readTimeout;
    }

    String endpoint() {
        return endpoint;
    }

    /** A layer of a manifest. */
    record Layer(String mediaType, String digest, long size) {
        String hex() {
            return digest.substring("sha256:".length());
        }
    }

    /**
     * A model's manifest.
     *
     * @param digest the digest of its bytes ({@code sha256:...}), what tells a pull that nothing changed
     * @param layers its layers, the config blob last
     */
    record Manifest(String digest, List<Layer> layers) {
        Optional<Layer> layer(String mediaType) {
            return layers.stream().filter(l -> l.mediaType().equals(mediaType)).findFirst();
        }
    }

    /** The model's manifest. */
    Manifest manifest(OllamaName name) throws PullException {
        URI uri = URI.create(endpoint + "/v2/" + segment(name.namespace()) + "/" + segment(name.model())
                + "/manifests/" + segment(name.tag()));
        byte[] bytes;
        HttpURLConnection c = authorised(uri, MANIFEST_TYPE, name);
        try {
            int status = c.getResponseCode();
            if (status == 404) {
                throw new PullException(PullException.Kind.NOT_FOUND, NOT_FOUND);
            }
            if (status != 200) {
                throw refusal(status, c, "the manifest of " + name.shortest());
            }
            try (InputStream in = c.getInputStream()) {
                bytes = in.readNBytes(MAX_MANIFEST);
            }
        } catch (IOException e) {
            throw unreachable(e);
        } finally {
            c.disconnect();
        }
        JsonNode root;
        try {
            root = json.readTree(bytes);
        } catch (IOException e) {
            root = null;
        }
        if (root == null || !root.isObject() || !root.path("layers").isArray()) {
            throw notARegistry("something else than a manifest for " + name.shortest());
        }
        List<Layer> layers = new ArrayList<>();
        for (JsonNode l : root.path("layers")) {
            layers.add(layer(l, name));
        }
        if (root.path("config").isObject() && !root.path("config").path("digest").asText("").isEmpty()) {
            layers.add(layer(root.path("config"), name));
        }
        return new Manifest("sha256:" + sha256(bytes), List.copyOf(layers));
    }

    private Layer layer(JsonNode l, OllamaName name) throws PullException {
        String digest = l.path("digest").asText("").toLowerCase(Locale.ROOT);
        long size = l.path("size").asLong(-1);
        if (!digest.matches("sha256:[0-9a-f]{64}") || size < 0) {
            throw notARegistry("a layer without a sha256 digest or a size in the manifest of " + name.shortest());
        }
        return new Layer(l.path("mediaType").asText(""), digest, size);
    }

    /**
     * A blob's bytes from {@code offset}, following the registry's redirect to its storage (the token stays with the
     * registry).
     *
     * @throws HubUnavailable the registry or its storage cannot be reached, or answers to ask later
     */
    HubClient.Body open(OllamaName name, HubFile blob, long offset) throws PullException, HubUnavailable {
        URI uri = URI.create(endpoint + "/v2/" + segment(name.namespace()) + "/" + segment(name.model()) + "/blobs/"
                + blob.digest().label());
        URI origin = URI.create(endpoint);
        boolean ranged = offset > 0;
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
            boolean registry = sameOrigin(uri, origin);
            HttpURLConnection c;
            try {
                c = connect(uri, "*/*", ranged ? offset : 0, registry ? token : Optional.empty());
            } catch (PullException e) {
                throw e;
            }
            try {
                int status = c.getResponseCode();
                if (status == 401 && registry && token.isEmpty() && challenge(c, name)) {
                    drain(c);
                    hop--;
                    continue;
                }
                if (status >= 300 && status < 400) {
                    String location = c.getHeaderField("Location");
                    if (location == null) {
                        throw notARegistry("a redirect without a Location for " + blob.digest().label());
                    }
                    uri = uri.resolve(location);
                    drain(c);
                    continue;
                }
                if (status == 416 && ranged) {
                    drain(c);
                    ranged = false;
                    continue;
                }
                if (status == 408 || status == 429 || status >= 500) {
                    String said = readError(c);
                    throw new HubUnavailable(where(uri, origin) + " answered " + status
                            + (said.isEmpty() ? "" : " (" + said + ")") + " for " + blob.digest().label(),
                            Backoff.retryAfter(c.getHeaderField("Retry-After")), null);
                }
                if (status != 200 && status != 206) {
                    throw refusal(status, c, blob.digest().label());
                }
                long start = status == 206 ? offset : 0;
                long length = c.getContentLengthLong();
                if (length >= 0 && start + length != blob.size()) {
                    throw notARegistry(blob.digest().label() + " of " + (start + length) + " bytes where the manifest"
                            + " says " + blob.size());
                }
                HttpURLConnection open = c;
                c = null;
                return new HubClient.Body(open.getInputStream(), start, open);
            } catch (IOException e) {
                throw new HubUnavailable("cannot reach " + where(uri, origin) + ": " + HubClient.why(e),
                        Optional.empty(), e);
            } finally {
                if (c != null) {
                    c.disconnect();
                }
            }
        }
        throw notARegistry("more than " + MAX_REDIRECTS + " redirects for " + blob.digest().label());
    }

    /** A small layer's bytes (a template, the parameters, a licence), read whole and checked against its digest. */
    byte[] small(OllamaName name, Layer layer) throws PullException {
        if (layer.size() > MAX_MANIFEST) {
            throw notARegistry(layer.mediaType() + " of " + layer.size() + " bytes in " + name.shortest());
        }
        HubFile blob = new HubFile(layer.hex(), layer.size(), Digest.sha256(layer.hex()));
        try (HubClient.Body body = open(name, blob, 0)) {
            byte[] bytes = body.stream().readNBytes((int) layer.size());
            if (bytes.length != layer.size() || !("sha256:" + sha256(bytes)).equals(layer.digest())) {
                throw notARegistry(layer.mediaType() + " whose bytes do not have their digest in " + name.shortest());
            }
            return bytes;
        } catch (HubUnavailable e) {
            throw new PullException(PullException.Kind.BAD_GATEWAY, e.getMessage());
        } catch (IOException e) {
            throw unreachable(e);
        }
    }

    /** A request the registry may answer with a token challenge: answered once, with the token it asks for. */
    private HttpURLConnection authorised(URI uri, String accept, OllamaName name) throws PullException {
        HttpURLConnection c = connect(uri, accept, 0, token);
        try {
            if (c.getResponseCode() == 401 && token.isEmpty() && challenge(c, name)) {
                drain(c);
                return connect(uri, accept, 0, token);
            }
        } catch (IOException e) {
            c.disconnect();
            throw unreachable(e);
        }
        return c;
    }

    /**
     * The token a {@code Bearer} challenge asks for, from its realm, asked anonymously: only on the registry's own
     * host (Ollama's rule: a realm elsewhere is refused). Returns whether there is one now.
     */
    private boolean challenge(HttpURLConnection c, OllamaName name) throws PullException {
        String header = c.getHeaderField("WWW-Authenticate");
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        String realm = null;
        StringBuilder query = new StringBuilder();
        Matcher m = CHALLENGE.matcher(header);
        while (m.find()) {
            if (m.group(1).equals("realm")) {
                realm = m.group(2);
            } else if (m.group(1).equals("service") || m.group(1).equals("scope")) {
                query.append(query.isEmpty() ? "?" : "&").append(m.group(1)).append('=')
                        .append(URLEncoder.encode(m.group(2), StandardCharsets.UTF_8));
            }
        }
        if (realm == null) {
            return false;
        }
        URI realmUri;
        try {
            realmUri = URI.create(realm + query);
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (realmUri.getHost() == null || !realmUri.getHost().equalsIgnoreCase(URI.create(endpoint).getHost())) {
            throw new PullException(PullException.Kind.UNAUTHORIZED, "the registry at " + endpoint + " asks for a"
                    + " token from " + realm + ", another host: refused, as Ollama refuses it");
        }
        HttpURLConnection t = connect(realmUri, "application/json", 0, Optional.empty());
        try {
            if (t.getResponseCode() != 200) {
                throw new PullException(PullException.Kind.UNAUTHORIZED, "the registry at " + endpoint
                        + " gave no token for " + name.shortest() + " (" + t.getResponseCode() + ")");
            }
            try (InputStream in = t.getInputStream()) {
                JsonNode node = json.readTree(in.readNBytes(MAX_ERROR_BODY));
                String value = node.path("token").asText(node.path("access_token").asText(""));
                token = value.isBlank() ? Optional.empty() : Optional.of(value);
            }
        } catch (IOException e) {
            throw unreachable(e);
        } finally {
            t.disconnect();
        }
        return token.isPresent();
    }

    private HttpURLConnection connect(URI uri, String accept, long from, Optional<String> bearer)
            throws PullException {
        try {
            HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
            c.setInstanceFollowRedirects(false); // a redirect to the storage must not carry the token
            c.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
            c.setReadTimeout((int) Math.min(Integer.MAX_VALUE, readTimeout.toMillis()));
            c.setUseCaches(false);
            c.setRequestProperty("User-Agent", userAgent);
            c.setRequestProperty("Accept", accept);
            c.setRequestProperty("Accept-Encoding", "identity");
            bearer.ifPresent(t -> c.setRequestProperty("Authorization", "Bearer " + t));
            if (from > 0) {
                c.setRequestProperty("Range", "bytes=" + from + "-");
            }
            return c;
        } catch (IOException | IllegalArgumentException e) {
            throw new PullException(PullException.Kind.BAD_GATEWAY, "cannot ask the registry at " + endpoint + ": "
                    + e.getMessage());
        }
    }

    private String where(URI uri, URI origin) {
        return sameOrigin(uri, origin) ? "the registry at " + endpoint
                : "the registry's storage at " + uri.getScheme() + "://" + uri.getRawAuthority();
    }

    private static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost() != null
                && a.getHost().equalsIgnoreCase(b.getHost()) && port(a) == port(b);
    }

    private static int port(URI u) {
        return u.getPort() >= 0 ? u.getPort() : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    private PullException refusal(int status, HttpURLConnection c, String what) {
        String said = readError(c);
        if (status == 401 || status == 403) {
            return new PullException(PullException.Kind.UNAUTHORIZED, "the registry at " + endpoint + " refused "
                    + what + " (" + status + (said.isEmpty() ? "" : ": " + said) + ")");
        }
        if (status == 404) {
            return new PullException(PullException.Kind.NOT_FOUND, "the registry at " + endpoint + " has no " + what);
        }
        return notARegistry(status + (said.isEmpty() ? "" : " (" + said + ")") + " for " + what);
    }

    private PullException notARegistry(String what) {
        return new PullException(PullException.Kind.BAD_GATEWAY, "the registry at " + endpoint + " answered " + what);
    }

    private PullException unreachable(IOException e) {
        // a registry that speaks plain http answers a TLS greeting with bytes TLS cannot read: say what to do
        String hint = e instanceof javax.net.ssl.SSLException && endpoint.startsWith("https://")
                ? " (a registry served over plain http is asked only with insecure: rkllm-server pull --insecure, or"
                + " \"insecure\": true in /api/pull)" : "";
        return new PullException(PullException.Kind.BAD_GATEWAY, "cannot reach the registry at " + endpoint + ": "
                + HubClient.why(e) + hint, e);
    }

    /** The error an answer's body states: a registry's {@code errors[0].message}, Ollama's {@code error}. */
    private String readError(HttpURLConnection c) {
        try (InputStream body = c.getErrorStream()) {
            if (body == null) {
                return "";
            }
            String text = new String(body.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8).strip();
            if (text.startsWith("{")) {
                JsonNode node = json.readTree(text);
                return node.path("errors").path(0).path("message").asText(node.path("error").asText(""));
            }
            return text.startsWith("<") ? "" : text.lines().findFirst().orElse("");
        } catch (IOException e) {
            return "";
        }
    }

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

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
    }
}
