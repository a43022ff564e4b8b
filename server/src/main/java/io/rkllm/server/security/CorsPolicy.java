package io.rkllm.server.security;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which browser origins may call the API, and which request headers they may send. Nothing but
 * same-origin by default; {@code *} allows any origin.
 */
public final class CorsPolicy {
    /**
     * The headers every client may send on every route (an API key in either header, Open WebUI's chat id, which
     * every chat API reads); each API family adds its own SDKs' ({@code ApiFamily.requestHeaders}).
     */
    static final Set<String> COMMON_HEADERS = Set.of("authorization", "content-type", "accept", "accept-language",
            "x-request-id", "x-api-key", "x-openwebui-chat-id");
    /** The Stainless-generated SDKs send a family of these (x-stainless-os, -lang, -retry-count...). */
    static final String STAINLESS_PREFIX = "x-stainless-";
    /** Response headers a browser script may read. */
    static final String EXPOSED_HEADERS = "x-request-id, retry-after, x-rkllm-context-trimmed, x-rkllm-sampling,"
            + " x-rkllm-truncated, x-rkllm-rag, x-rkllm-output-check, x-rkllm-incomplete, x-rkllm-images-ignored,"
            + " x-rkllm-max-tokens, x-rkllm-tools-ignored";
    static final String METHODS = "GET, POST, OPTIONS";

    private final Set<String> origins;
    private final boolean any;
    private final Set<String> allowedHeaders;

    public CorsPolicy(List<String> origins, Set<String> apiHeaders) {
        this.any = origins.contains("*");
        Set<String> headers = new HashSet<>(COMMON_HEADERS);
        apiHeaders.forEach(h -> headers.add(h.toLowerCase(Locale.ROOT)));
        this.allowedHeaders = Set.copyOf(headers);
        this.origins = Set.copyOf(origins.stream().map(CorsPolicy::normalise).toList());
    }

    /** Whether cross-origin requests are configured at all. */
    public boolean enabled() {
        return any || !origins.isEmpty();
    }

    public boolean allows(String origin) {
        return origin != null && (any || origins.contains(normalise(origin)));
    }

    /** The requested headers this policy allows, for {@code Access-Control-Allow-Headers}. */
    String allowedOf(String requested) {
        List<String> allowed = new ArrayList<>();
        if (requested != null) {
            for (String header : requested.split(",")) {
                String h = header.strip().toLowerCase(Locale.ROOT);
                if (!h.isEmpty() && h.length() <= 64 && (allowedHeaders.contains(h) || (h.startsWith(STAINLESS_PREFIX)
                        && h.chars().allMatch(c -> c == '-' || Character.isLetterOrDigit(c))))) {
                    allowed.add(h);
                }
            }
        }
        if (allowed.isEmpty()) {
            allowed.add("authorization");
            allowed.add("content-type");
        }
        return String.join(", ", allowed);
    }

    private static String normalise(String origin) {
        String o = origin.strip().toLowerCase(Locale.ROOT);
        return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
    }
}
