package io.rkllm.server.http.webui;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The page's files, read from the jar ({@code io/rkllm/server/webui/}: the page's own files and, under
 * {@code vendor/}, the libraries the build unpacks from their WebJars) on first request and kept with their gzip
 * form. Only names made of plain path segments with a known extension are looked up, so a request can reach no
 * other resource of the jar.
 */
final class StaticAssets {
    private static final String ROOT = "/io/rkllm/server/webui/";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "application/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "json", "application/json",
            "txt", "text/plain; charset=utf-8",
            "md", "text/plain; charset=utf-8");

    // hits only: a miss is not remembered, so that requests for made-up names cannot grow the map
    private final Map<String, Asset> loaded = new ConcurrentHashMap<>();

    Optional<Asset> find(String name) {
        if (name == null || !NAME.matcher(name).matches() || name.contains("..")) {
            return Optional.empty();
        }
        String type = TYPES.get(extension(name));
        if (type == null) {
            return Optional.empty();
        }
        Asset cached = loaded.get(name);
        if (cached != null) {
            return Optional.of(cached);
        }
        try (InputStream in = StaticAssets.class.getResourceAsStream(ROOT + name)) {
            if (in == null) {
                return Optional.empty();
            }
            Asset asset = Asset.of(type, in.readAllBytes());
            Asset raced = loaded.putIfAbsent(name, asset);
            return Optional.of(raced != null ? raced : asset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String extension(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    }
}
