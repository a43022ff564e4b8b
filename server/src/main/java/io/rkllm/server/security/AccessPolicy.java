package io.rkllm.server.security;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.rkllm.server.api.ApiException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs before every route: CORS headers and preflights (answered without a key), then the API key.
 * {@code /health} and {@code /} (a client's "is it running" probe, or the chat page for a browser) are always
 * public, and so are the chat page's files when it is served (they hold no data: the page asks for the key); the
 * model lists ({@code GET /v1/models[/{id}]}, Ollama's {@code GET
 * /api/tags} and {@code /api/version}) when configured; everything else, {@code /metrics} and routes added
 * later included, needs a key once keys are configured.
 */
public final class AccessPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(AccessPolicy.class);
    private static final Set<String> HEALTH = Set.of("/health", "/v1/health", "/");
    private static final Pattern MODELS = Pattern.compile("/(v1/)?models(/[^/]+)?/?|/api/tags|/api/version");
    private static final String BEARER = "bearer ";

    private final ApiKeys keys;
    private final boolean publicModels;
    private final CorsPolicy cors;
    private final String pagePrefix;

    /** @param pagePrefix where the chat page's files are served (public), or null when there is no page */
    public AccessPolicy(ApiKeys keys, boolean publicModels, CorsPolicy cors, String pagePrefix) {
        this.keys = keys;
        this.publicModels = publicModels;
        this.cors = cors;
        this.pagePrefix = pagePrefix;
    }

    public ApiKeys keys() {
        return keys;
    }

    /** The Javalin before-handler. */
    public void before(Context ctx) {
        String origin = ctx.header("Origin");
        if (cors.enabled()) {
            ctx.header("Vary", "Origin");
        }
        if (cors.allows(origin)) {
            ctx.header("Access-Control-Allow-Origin", origin);
            ctx.header("Access-Control-Expose-Headers", CorsPolicy.EXPOSED_HEADERS);
        }
        if (ctx.method() == HandlerType.OPTIONS) {
            preflight(ctx, origin);
            return;
        }
        if (!keys.enabled() || isPublic(ctx)) {
            return;
        }
        String bearer = bearer(ctx.header("Authorization"));
        String apiKey = ctx.header("X-Api-Key");
        if (bearer == null && apiKey == null) {
            throw unauthorized("You didn't provide an API key. Send it as 'Authorization: Bearer KEY' or 'X-Api-Key: KEY'.",
                    "missing_api_key", ctx);
        }
        // both are checked when both are sent, in constant time each
        boolean ok = keys.accepts(bearer) | keys.accepts(apiKey);
        if (!ok) {
            throw unauthorized("Incorrect API key provided.", "invalid_api_key", ctx);
        }
    }

    private void preflight(Context ctx, String origin) {
        String method = ctx.header("Access-Control-Request-Method");
        if (origin != null && method != null) {
            if (!cors.allows(origin)) {
                throw new ApiException(403, "invalid_request_error", "cors_origin_not_allowed", null,
                        "cross-origin requests from this origin are not allowed (security.cors_origins)", Map.of(), null);
            }
            ctx.header("Access-Control-Allow-Methods", CorsPolicy.METHODS);
            ctx.header("Access-Control-Allow-Headers", cors.allowedOf(ctx.header("Access-Control-Request-Headers")));
            ctx.header("Access-Control-Max-Age", "600");
        } else {
            ctx.header("Allow", CorsPolicy.METHODS);
        }
        ctx.status(204);
        ctx.skipRemainingHandlers();
    }

    private boolean isPublic(Context ctx) {
        if (ctx.method() != HandlerType.GET && ctx.method() != HandlerType.HEAD) {
            return false;
        }
        String path = ctx.path();
        return HEALTH.contains(path) || (publicModels && MODELS.matcher(path).matches())
                || (pagePrefix != null && path.startsWith(pagePrefix));
    }

    private static String bearer(String authorization) {
        if (authorization == null) {
            return null;
        }
        String a = authorization.strip();
        return a.length() > BEARER.length() && a.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)
                ? a.substring(BEARER.length()).strip() : null;
    }

    private static ApiException unauthorized(String message, String code, Context ctx) {
        ctx.header("WWW-Authenticate", "Bearer realm=\"rkllm-server\"");
        return new ApiException(401, "authentication_error", code, null, message, Map.of(), null);
    }

    /** Says at startup who can reach the server and whether they need a key. */
    public void announce(String host) {
        boolean loopback = isLoopback(host);
        if (keys.enabled()) {
            LOG.info("API keys required: {} key(s); public: /health{}{}", keys.size(),
                    publicModels ? ", GET /v1/models, /api/tags, /api/version" : "",
                    pagePrefix != null ? ", the chat page (/ and " + pagePrefix + "; it asks for a key)" : "");
        } else if (!loopback) {
            LOG.warn("listening on {} WITHOUT API keys: anyone who can reach this port can use the models."
                    + " Set security.api_keys, security.api_key_file, --api-key or RKLLM_API_KEYS, or bind to"
                    + " 127.0.0.1", host);
        }
    }

    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
