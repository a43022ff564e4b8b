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
 * @param registry  the Ollama registry that names without a host are pulled from ({@code qwen3:4b}): its address,
 *                  {@code RKLLM_REGISTRY} ({@code https://registry.ollama.ai} by default; a mirror, the tests'
 *                  stand-in)
 */
public record Hub(String endpoint, Optional<String> token, String userAgent, String registry) {
    public static final String DEFAULT_ENDPOINT = "https://huggingface.co";
    public static final String DEFAULT_REGISTRY = "https://" + OllamaName.DEFAULT_HOST;

    public Hub {
        endpoint = withoutTrailingSlash(endpoint);
        registry = withoutTrailingSlash(registry);
        token = token.map(String::strip).filter(t -> !t.isEmpty());
    }

    private static String withoutTrailingSlash(String s) {
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    /**
     * The Hub the environment names.
     *
     * @throws PullException {@link PullException.Kind#INVALID} for an {@code HF_ENDPOINT} that is no http(s) address
     */
    public static Hub fromEnvironment(Map<String, String> environment, String version) throws PullException {
        String endpoint = address(environment, "HF_ENDPOINT", DEFAULT_ENDPOINT);
        String registry = address(environment, "RKLLM_REGISTRY", DEFAULT_REGISTRY);
        Optional<String> token = Optional.ofNullable(environment.get("HF_TOKEN"))
                .or(() -> Optional.ofNullable(environment.get("HUGGING_FACE_HUB_TOKEN")));
        return new Hub(endpoint, token, "rkllm-server/" + version, registry);
    }

    private static String address(Map<String, String> environment, String variable, String otherwise)
            throws PullException {
        String value = environment.getOrDefault(variable, "").strip();
        if (value.isEmpty()) {
            return otherwise;
        }
        URI uri;
        try {
            uri = URI.create(value);
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        if (uri == null || uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
            throw new PullException(PullException.Kind.INVALID, variable + " '" + value + "' is not an http(s)"
                    + " address such as " + otherwise);
        }
        return value;
    }

    /** The page of a repository, for messages ("accept its terms at ..."). */
    public String page(String repo) {
        return endpoint + "/" + repo;
    }
}
