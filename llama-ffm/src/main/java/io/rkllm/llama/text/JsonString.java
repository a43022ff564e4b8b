package io.rkllm.llama.text;

/**
 * Text as a JSON string literal, quotes included, for JSON written without a JSON library (the grammar
 * compiler's constants, and the server's chat templates, which must write JSON as Python's {@code json.dumps}
 * does). It lives in the lowest module both reach: llama-ffm knows nothing of the server.
 *
 * <p>Only what JSON requires is escaped: the quote, the backslash and U+0000 to U+001F ({@code \b \f \n \r \t}
 * by name, the others as lower-case {@code \}{@code u00xx}, as Python writes them). {@code /}, DEL, U+2028/U+2029
 * and lone surrogates are left as they are, as {@code json.dumps(ensure_ascii=False)} leaves them: a prompt
 * must read as the model's training data did, byte for byte.
 */
public final class JsonString {
    private JsonString() {
    }

    /** {@code text} as a JSON string, other characters kept as they are. */
    public static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2);
        quote(text, false, out);
        return out.toString();
    }

    /**
     * Appends {@code text} as a JSON string to {@code out}.
     *
     * @param asciiOnly also escape every UTF-16 unit outside printable ASCII (U+0020 to U+007E), DEL included,
     *                  one escape a unit (a surrogate pair as two): Python's {@code ensure_ascii}
     */
    public static void quote(String text, boolean asciiOnly, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || (asciiOnly && c > 0x7e)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
