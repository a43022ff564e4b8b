package io.rkllm.server.http.webui;

import io.javalin.http.Context;
import java.util.Locale;

/**
 * The built-in chat page (docs/web-ui.md): {@code GET /} gives a browser (whose {@code Accept} names
 * {@code text/html}) the page and every other client Ollama's "is it running" answer, which Ollama clients check
 * for; {@code GET /ui/<file>} serves the page's files from the jar, gzip-compressed when the client accepts it,
 * revalidated by ETag. With {@code server.web_ui: false} every client gets the Ollama answer and no file is served.
 * The page talks to the API on the same origin, so neither CORS nor the API key rules change for it.
 */
public final class WebUi {
    /** Where the page's files are served; public like {@code /} itself (they hold no data). */
    public static final String PREFIX = "/ui/";
    static final String OLLAMA_ANSWER = "Ollama is running";
    /**
     * The page's own policy: its scripts and styles from this origin only, requests to this origin only, pictures
     * from the user's own files (data: and blob: URLs). Model output is sanitised before it is shown; this is the
     * second wall, and it keeps a rendered answer from making the browser fetch anything from elsewhere.
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
            + " img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; manifest-src 'self';"
            + " base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final boolean enabled;
    private final StaticAssets assets = new StaticAssets();

    public WebUi(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean enabled() {
        return enabled;
    }

    /** {@code GET /}. */
    public void root(Context ctx) {
        if (enabled && wantsHtml(ctx.header("Accept"))) {
            ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
            ctx.header("Referrer-Policy", "no-referrer");
            ctx.header("X-Frame-Options", "DENY");
            send(ctx, "index.html", "Accept, Accept-Encoding");
            return;
        }
        if (enabled) {
            // the same URL answers differently by Accept: caches must keep both apart
            vary(ctx, "Accept");
        }
        ctx.contentType("text/plain; charset=utf-8").result(OLLAMA_ANSWER);
    }

    /** {@code GET /ui/<file>}: the page's files; the page itself only at {@code /}, with its security headers. */
    public void asset(Context ctx) {
        String name = ctx.pathParam("file");
        if (name.endsWith(".html")) {
            ctx.status(404);
            return;
        }
        send(ctx, name, "Accept-Encoding");
    }

    /** Adds to {@code Vary} what this answer depends on, keeping what was there (CORS's Origin). */
    private static void vary(Context ctx, String values) {
        String before = ctx.res().getHeader("Vary");
        ctx.header("Vary", before == null || before.isBlank() ? values : before + ", " + values);
    }

    private void send(Context ctx, String name, String vary) {
        Asset asset = assets.find(name).orElse(null);
        if (asset == null) {
            // the server's own 404 body, as for any unknown route
            ctx.status(404);
            return;
        }
        boolean gzip = asset.gzip().isPresent() && acceptsGzip(ctx.header("Accept-Encoding"));
        String etag = gzip ? asset.gzipEtag() : asset.etag();
        vary(ctx, vary);
        // unversioned names: always revalidate, which costs one 304 per file
        ctx.header("Cache-Control", "no-cache");
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("ETag", etag);
        if (matches(ctx.header("If-None-Match"), etag)) {
            ctx.status(304);
            return;
        }
        byte[] body = gzip ? asset.gzip().get() : asset.bytes();
        if (gzip) {
            ctx.header("Content-Encoding", "gzip");
        }
        ctx.contentType(asset.contentType());
        ctx.header("Content-Length", Integer.toString(body.length));
        ctx.result(body);
    }

    static boolean wantsHtml(String accept) {
        return accept != null && accept.toLowerCase(Locale.ROOT).contains("text/html");
    }

    static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        for (String part : acceptEncoding.toLowerCase(Locale.ROOT).split(",")) {
            String[] p = part.strip().split(";");
            if (p[0].strip().equals("gzip") && !(p.length > 1 && p[1].replace(" ", "").matches("q=0(\\.0*)?"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(String ifNoneMatch, String etag) {
        if (ifNoneMatch == null) {
            return false;
        }
        for (String tag : ifNoneMatch.split(",")) {
            String t = tag.strip();
            if (t.equals("*") || t.equals(etag) || t.equals("W/" + etag)) {
                return true;
            }
        }
        return false;
    }
}
