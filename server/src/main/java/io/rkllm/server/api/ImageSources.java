package io.rkllm.server.api;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.pipeline.request.ChatImage;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;

/**
 * Where the pictures of a request come from: {@code data:} URLs and bare base64 (what Open WebUI, Ollama clients
 * and Anthropic clients send), and http(s) URLs only when {@code vision.fetch_urls} is on (a server that fetches
 * any URL it is given can be made to reach the network behind it). Every picture is bounded in size and every
 * request in count; what is wrong is a 400 naming the part of the request.
 */
public final class ImageSources {
    /** The codes of this class's errors. */
    public static final String INVALID = "invalid_image";
    public static final String TOO_LARGE = "image_too_large";
    public static final String TOO_MANY = "too_many_images";
    public static final String URL_NOT_ALLOWED = "image_url_not_allowed";

    /**
     * @param maxImageBytes the largest picture, decoded
     * @param maxImages pictures in one request, every message counted
     * @param fetchUrls fetch http(s) URLs
     */
    public record Settings(int maxImageBytes, int maxImages, boolean fetchUrls, Duration fetchTimeout) {
        public static final Settings DEFAULT = new Settings(20 << 20, 16, false, Duration.ofSeconds(10));

        public static Settings of(ServerConfig.Limits limits, ServerConfig.Vision vision) {
            return new Settings(vision.maxImageMb() << 20, limits.maxImages(), vision.fetchUrls(),
                    vision.fetchTimeout());
        }
    }

    private final Settings settings;
    private final ImageFetcher fetcher;

    public ImageSources(Settings settings) {
        this.settings = settings;
        this.fetcher = new ImageFetcher(settings.fetchTimeout(), settings.maxImageBytes());
    }

    Settings settings() {
        return settings;
    }

    /** The pictures of one request, counted. */
    public Intake intake() {
        return new Intake();
    }

    /** Reads the pictures of one request; not shared between requests or threads. */
    public final class Intake {
        private int count;

        /** An image URL: {@code data:image/...;base64,...}, or http(s) when fetching is on. */
        public ChatImage url(String url, String param) {
            String u = url.strip();
            String scheme = u.length() > 5 ? u.substring(0, 5).toLowerCase(Locale.ROOT) : "";
            if (scheme.equals("data:")) {
                int comma = u.indexOf(',');
                if (comma < 0) {
                    throw ApiException.invalidCode(INVALID, param, "the data: URL has no ',' before its data");
                }
                String header = u.substring(5, comma).toLowerCase(Locale.ROOT);
                if (!header.endsWith(";base64")) {
                    throw ApiException.invalidCode(INVALID, param, "send the picture base64-encoded: "
                            + "data:image/png;base64,...");
                }
                return base64(u.substring(comma + 1), param);
            }
            if (scheme.equals("http:") || scheme.equals("https")) {
                if (!settings.fetchUrls()) {
                    throw ApiException.invalidCode(URL_NOT_ALLOWED, param, "this server does not fetch image URLs"
                            + " (vision.fetch_urls is off): send the picture as a data: URL"
                            + " (data:image/jpeg;base64,...)");
                }
                count();
                return ChatImage.of(fetcher.fetch(u, param), param);
            }
            throw ApiException.invalidCode(INVALID, param, "an image URL must be a data: URL"
                    + (settings.fetchUrls() ? " or an http(s) URL" : " (data:image/jpeg;base64,...)"));
        }

        /** Base64 picture data; a data: URL is accepted too (some Ollama clients send one). */
        public ChatImage base64(String data, String param) {
            if (data.regionMatches(true, 0, "data:", 0, 5)) {
                return url(data, param);
            }
            count();
            String compact = data.indexOf('\n') >= 0 || data.indexOf('\r') >= 0 || data.indexOf(' ') >= 0
                    ? data.replaceAll("\\s+", "") : data;
            if (compact.isEmpty()) {
                throw ApiException.invalidCode(INVALID, param, "the picture is empty");
            }
            long decoded = (long) compact.length() * 3 / 4;
            if (decoded > settings.maxImageBytes()) {
                throw ApiException.invalidCode(TOO_LARGE, param, "the picture is about " + mb(decoded)
                        + " MB, more than the " + mb(settings.maxImageBytes()) + " MB this server accepts"
                        + " (vision.max_image_mb); send it smaller");
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(compact);
            } catch (IllegalArgumentException e) {
                try {
                    bytes = Base64.getUrlDecoder().decode(compact);
                } catch (IllegalArgumentException again) {
                    throw ApiException.invalidCode(INVALID, param, "the picture is not valid base64: "
                            + e.getMessage());
                }
            }
            if (bytes.length == 0) {
                throw ApiException.invalidCode(INVALID, param, "the picture is empty");
            }
            return ChatImage.of(bytes, param);
        }

        private void count() {
            if (++count > settings.maxImages()) {
                throw ApiException.invalidCode(TOO_MANY, "messages", "the request carries more than "
                        + settings.maxImages() + " pictures (limits.max_images), earlier messages' included");
            }
        }
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }
}
