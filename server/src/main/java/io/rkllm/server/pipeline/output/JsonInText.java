package io.rkllm.server.pipeline.output;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.text.BracketScanner;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON a model wrote, taken out of what surrounds it (a code fence, prose before or after), and mended
 * where the damage is mechanical: commas before a closing bracket, and strings, arrays and objects left
 * open at the end (a reply cut short). Nothing is guessed beyond that: a reply that still does not parse
 * has no JSON.
 */
public final class JsonInText {
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern FENCE = Pattern.compile("```[a-zA-Z0-9_-]*\\s*\\n?(.*?)(?:```|$)", Pattern.DOTALL);

    /**
     * The JSON found.
     *
     * @param json the JSON text to answer with (as written when it parsed unchanged, else the mended text)
     * @param repaired it parsed only after mending
     */
    public record Found(JsonNode value, String json, boolean repaired) {
    }

    private JsonInText() {
    }

    /** The first JSON object or array in {@code text}, mended if needed; empty when there is none. */
    public static Optional<Found> find(String text) {
        String body = text.strip();
        Matcher fence = FENCE.matcher(body);
        if (fence.find()) {
            body = fence.group(1).strip();
        }
        int start = firstOpening(body);
        if (start < 0) {
            return Optional.empty();
        }
        Scan scan = scan(body, start);
        String candidate = body.substring(start, scan.end());
        Optional<JsonNode> parsed = parse(candidate);
        if (parsed.isPresent() && scan.closed()) {
            return Optional.of(new Found(parsed.get(), candidate, false));
        }
        String mended = mend(candidate, scan);
        return parse(mended).map(node -> new Found(node, mended, true));
    }

    /**
     * The whole text (out of a code fence) as one JSON value that is not an object or an array: a number, a string,
     * true, false or null, which a schema of such a type asks for; empty otherwise.
     */
    public static Optional<Found> scalar(String text) {
        String body = text.strip();
        Matcher fence = FENCE.matcher(body);
        if (fence.find()) {
            body = fence.group(1).strip();
        }
        try {
            JsonNode node = STRICT.readTree(body);
            return node == null || node.isMissingNode() || node.isContainerNode() ? Optional.empty()
                    : Optional.of(new Found(node, body, false));
        } catch (JacksonException e) {
            return Optional.empty();
        }
    }

    private static int firstOpening(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{' || c == '[') {
                return i;
            }
        }
        return -1;
    }

    /**
     * Where the value that starts at {@code start} ends, and what was left open if the text ended first.
     *
     * @param closers the brackets still open at the end, innermost first
     */
    private record Scan(int end, boolean closed, boolean inString, String closers) {
    }

    private static Scan scan(String s, int start) {
        BracketScanner scanner = new BracketScanner(s, start, BracketScanner.Syntax.JSON);
        while (scanner.next()) {
            if (scanner.closes() && scanner.depth() == 0) {
                return new Scan(scanner.index() + 1, true, false, "");
            }
        }
        return new Scan(s.length(), false, scanner.inLiteral(), scanner.closers());
    }

    private static String mend(String candidate, Scan scan) {
        StringBuilder out = new StringBuilder(candidate.stripTrailing());
        if (scan.inString()) {
            out.append('"');
        }
        String text = out.toString();
        // a value cut off after its key or after a comma cannot be finished: drop the dangling part
        text = text.replaceAll(",\\s*$", "").replaceAll(",\\s*\"[^\"]*\"\\s*:?\\s*$", "");
        return withoutTrailingCommas(text + scan.closers());
    }

    /** Removes commas that directly precede a closing bracket, outside strings. */
    static String withoutTrailingCommas(String s) {
        StringBuilder out = new StringBuilder(s.length());
        BracketScanner scanner = new BracketScanner(s, 0, BracketScanner.Syntax.JSON);
        while (scanner.next()) {
            char c = scanner.current();
            if (c == ',' && scanner.inCode()) {
                int j = scanner.index() + 1;
                while (j < s.length() && Character.isWhitespace(s.charAt(j))) {
                    j++;
                }
                if (j < s.length() && (s.charAt(j) == '}' || s.charAt(j) == ']')) {
                    continue;
                }
            }
            out.append(c);
        }
        return out.toString();
    }

    private static Optional<JsonNode> parse(String text) {
        try {
            JsonNode node = STRICT.readTree(text);
            return node == null || !(node.isObject() || node.isArray()) ? Optional.empty() : Optional.of(node);
        } catch (JacksonException e) {
            return Optional.empty();
        }
    }
}
