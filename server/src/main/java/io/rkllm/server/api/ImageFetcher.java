package io.rkllm.server.api;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Fetches an http(s) image URL, for servers configured to ({@code vision.fetch_urls}): bounded in time and
 * size, following redirects only to http(s). Blocks the request's (virtual) thread.
 */
final class ImageFetcher {
    private final Duration timeout;
    private final int maxBytes;
    private volatile HttpClient client;

    ImageFetcher(Duration timeout, int maxBytes) {
        this.timeout = timeout;
        this.maxBytes = maxBytes;
    }

    byte[] fetch(String url, String param) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidCode(ImageSources.INVALID, param, "the image URL is not valid: " + e.getMessage());
        }
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "image/*").GET().build();
        try {
            HttpResponse<InputStream> response = client().send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = response.body()) {
                if (response.statusCode() != 200) {
                    throw failed(param, url, "HTTP " + response.statusCode());
                }
                byte[] bytes = body.readNBytes(maxBytes + 1);
                if (bytes.length > maxBytes) {
                    throw ApiException.invalidCode(ImageSources.TOO_LARGE, param, "the picture at " + url
                            + " is larger than " + (maxBytes >> 20) + " MB (vision.max_image_mb)");
                }
                return bytes;
            }
        } catch (IOException e) {
            throw failed(param, url, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failed(param, url, "interrupted");
        }
    }

    private static ApiException failed(String param, String url, String why) {
        return ApiException.invalidCode("image_fetch_failed", param, "the picture at " + url + " could not be"
                + " fetched: " + why);
    }

    private HttpClient client() {
        HttpClient c = client;
        if (c == null) {
            synchronized (this) {
                if (client == null) {
                    client = HttpClient.newBuilder().connectTimeout(timeout)
                            .followRedirects(HttpClient.Redirect.NORMAL).build();
                }
                c = client;
            }
        }
        return c;
    }
}
