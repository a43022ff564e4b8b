package io.rkllm.llama.grammar;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * {@code $ref} inside the schema itself: {@code #} and JSON Pointers such as {@code #/$defs/Node} or
 * {@code #/definitions/Node} (any path, percent-encoding and {@code ~0 ~1} decoded). Nothing is ever fetched:
 * a reference to another document, to an {@code $anchor} or through an {@code $id} is refused.
 */
final class SchemaRefs {
    private final Object root;

    SchemaRefs(Object root) {
        this.root = root;
    }

    Object resolve(String ref, String at) {
        if (!ref.equals("#") && !ref.startsWith("#/")) {
            throw new UnsupportedSchemaException("$ref", at, "only references inside the schema (#/...) are "
                    + "followed, not " + ref);
        }
        Object node = root;
        if (ref.length() > 1) {
            for (String raw : ref.substring(2).split("/", -1)) {
                String segment = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8)
                        .replace("~1", "/").replace("~0", "~");
                if (node instanceof Map<?, ?> map && map.containsKey(segment)) {
                    node = map.get(segment);
                } else if (node instanceof List<?> list && segment.matches("0|[1-9][0-9]{0,8}")
                        && Integer.parseInt(segment) < list.size()) {
                    node = list.get(Integer.parseInt(segment));
                } else {
                    throw new UnsupportedSchemaException("$ref", at, ref + " does not lead to a schema");
                }
            }
        }
        if (!(node instanceof Map<?, ?>) && !(node instanceof Boolean)) {
            throw new UnsupportedSchemaException("$ref", at, ref + " does not lead to a schema");
        }
        return node;
    }

    /** The pointer of a reference, as a location in error messages. */
    static String location(String ref) {
        return ref.substring(1);
    }

    /** A rule name for what a reference leads to: its last segment ({@code Node} for {@code #/$defs/Node}). */
    static String hint(String ref) {
        String last = ref.substring(ref.lastIndexOf('/') + 1);
        return ref.equals("#") ? "root-ref" : last.isEmpty() ? "ref" : last;
    }
}
