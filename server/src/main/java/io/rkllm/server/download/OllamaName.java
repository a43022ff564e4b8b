package io.rkllm.server.download;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A model named as Ollama names it, {@code [HOST/][NAMESPACE/]MODEL[:TAG]}, read exactly as {@code ollama pull} reads
 * it (its {@code types/model/name.go}): the tag is what follows the last {@code :} after the last {@code /} (so
 * {@code localhost:5000/ns/m} keeps its port), the model is the last part, then the namespace, and what is left is
 * the host; an empty part is the default: {@code registry.ollama.ai}, {@code library}, {@code latest}.
 *
 * @param host      the registry, with its port ({@code registry.ollama.ai}, {@code localhost:5000})
 * @param namespace {@code library} for Ollama's own models
 * @param model     the model's name ({@code qwen3})
 * @param tag       its tag ({@code 4b}, {@code latest})
 * @param explicitHost whether the name gave the host (else it is the default registry's)
 * @param explicitNamespace whether the name gave the namespace
 */
public record OllamaName(String host, String namespace, String model, String tag, boolean explicitHost,
                         boolean explicitNamespace) {
    public static final String DEFAULT_HOST = "registry.ollama.ai";
    public static final String DEFAULT_NAMESPACE = "library";
    public static final String DEFAULT_TAG = "latest";

    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.:-]{0,349}");
    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_-]{0,79}");
    private static final Pattern PART = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}");

    /**
     * Reads a name; empty when it is no Ollama name (a part with characters Ollama's names cannot have, more parts
     * than host, namespace and model, an empty part between separators).
     */
    public static Optional<OllamaName> parse(String text) {
        String s = text == null ? "" : text.strip();
        if (s.isEmpty()) {
            return Optional.empty();
        }
        String tag = "";
        int colon = s.lastIndexOf(':');
        if (colon > s.lastIndexOf('/')) {
            tag = s.substring(colon + 1);
            s = s.substring(0, colon);
            if (tag.isEmpty()) {
                return Optional.empty();
            }
        }
        String[] parts = s.split("/", -1);
        if (parts.length > 3) {
            return Optional.empty();
        }
        String model = parts[parts.length - 1];
        String namespace = parts.length >= 2 ? parts[parts.length - 2] : "";
        String host = parts.length == 3 ? parts[0] : "";
        if (parts.length >= 2 && namespace.isEmpty() || parts.length == 3 && host.isEmpty()) {
            return Optional.empty();
        }
        // an explicit scheme is not Ollama's way through its API (it drops it); a name is not an address. A host is
        // a host (a dot, a port, localhost): OWNER/REPO/FILE is a file of a Hub repository, not a registry's model
        if (host.contains("://") || !host.isEmpty() && !host.contains(".") && !host.contains(":")
                && !host.equalsIgnoreCase("localhost")) {
            return Optional.empty();
        }
        OllamaName name = new OllamaName(host.isEmpty() ? DEFAULT_HOST : host,
                namespace.isEmpty() ? DEFAULT_NAMESPACE : namespace, model, tag.isEmpty() ? DEFAULT_TAG : tag,
                !host.isEmpty(), !namespace.isEmpty());
        return name.valid() ? Optional.of(name) : Optional.empty();
    }

    private boolean valid() {
        return HOST.matcher(host).matches() && NAMESPACE.matcher(namespace).matches()
                && PART.matcher(model).matches() && PART.matcher(tag).matches();
    }

    /** The Hugging Face Hub's names ({@code hf.co/OWNER/REPO:QUANT}): pulled through the Hub's own API. */
    public boolean onTheHub() {
        String h = host.toLowerCase(Locale.ROOT);
        return explicitHost && (h.equals("hf.co") || h.equals("huggingface.co"));
    }

    /** The name Ollama lists a model under: the host and namespace left out where they are the defaults. */
    public String shortest() {
        if (!host.equalsIgnoreCase(DEFAULT_HOST)) {
            return host + "/" + namespace + "/" + model + ":" + tag;
        }
        if (!namespace.equals(DEFAULT_NAMESPACE)) {
            return namespace + "/" + model + ":" + tag;
        }
        return model + ":" + tag;
    }

    /** The name with every part. */
    public String full() {
        return host + "/" + namespace + "/" + model + ":" + tag;
    }

    /**
     * The folder a pulled model gets in the models directory, which is also its id: {@code qwen3-4b} for Ollama's
     * own {@code qwen3:4b}, the namespace (and another registry's host) before it otherwise.
     */
    public String folder() {
        String base = (host.equalsIgnoreCase(DEFAULT_HOST) ? "" : host.replace(':', '-') + "-")
                + (namespace.equals(DEFAULT_NAMESPACE) ? "" : namespace + "-") + model
                + (tag.equals(DEFAULT_TAG) ? "" : "-" + tag);
        return base.toLowerCase(Locale.ROOT);
    }
}
