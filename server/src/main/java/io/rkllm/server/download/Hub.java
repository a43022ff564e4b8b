package io.rkllm.server.download;

import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * Which Hub to ask and how: {@code HF_ENDPOINT} (a mirror, or the tests' stand-in; {@code https://huggingface.co}
 * by default) and {@code HF_TOKEN} (for gated and private repositories), read as huggingface_hub, llama.cpp and
 * Ollama read them.
 *
 * @param endpoint  the Hub's address, without a trailing slash
 * @param token     the access token, sent only to the Hub itself (never to the storage it redirects downloads to)
 * @param userAgent how the server introduces itself
 */
public record Hub(String endpoint, Optional<String> token, String userAgent) {
    public static final String DEFAULT_ENDPOINT = "https://huggingface.co";

    public Hub {
        while (endpoint.endsWith("/")) {
            endpoint = endpoint.substring(0, endpoint.length() - 1);
        }
        token = token.map(String::strip).filter(t -> !t.isEmpty());
    }

    /**
     * The Hub the environment names.
     *
     * @throws PullException {@link PullException.Kind#INVALID} for an {@code HF_ENDPOINT} that is no http(s) address
     */
    public static Hub fromEnvironment(Map<String, String> environment, String version) throws PullException {
        String endpoint = environment.getOrDefault("HF_ENDPOINT", "").strip();
        if (endpoint.isEmpty()) {
            endpoint = DEFAULT_ENDPOINT;
        }
        URI uri;
        try {
            uri = URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        if (uri == null || uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
            throw new PullException(PullException.Kind.INVALID, "HF_ENDPOINT '" + endpoint + "' is not an http(s)"
                    + " address such as " + DEFAULT_ENDPOINT);
        }
        Optional<String> token = Optional.ofNullable(environment.get("HF_TOKEN"))
                .or(() -> Optional.ofNullable(environment.get("HUGGING_FACE_HUB_TOKEN")));
        return new Hub(endpoint, token, "rkllm-server/" + version);
    }

    /** The page of a repository, for messages ("accept its terms at ..."). */
    public String page(String repo) {
        return endpoint + "/" + repo;
    }
}
