package io.rkllm.llama.grammar;

import io.rkllm.llama.text.JsonString;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A set of characters as a JSON string's content writes them: a class of those written as themselves, the quote and
 * the backslash escaped, control characters as their escapes.
 */
final class JsonCharClass {
    private static final CharSet SURROGATES = CharSet.of(0xD800, 0xDFFF);
    private static final CharSet CONTROLS = CharSet.of(0, 0x1F);
    private static final CharSet BMP = CharSet.of(0, 0xFFFF);

    private JsonCharClass() {
    }

    /**
     * The characters of {@code chars} a JSON string can hold as one character of both regex dialects: no lone
     * surrogate, and, for a set of more than one, none beyond the BMP ({@code .} and {@code [^...]} take one UTF-16
     * unit in ECMA-262).
     */
    static CharSet ofString(CharSet chars) {
        CharSet out = chars.minus(SURROGATES);
        return out.size() > 1 ? out.intersect(BMP) : out;
    }

    /** The grammar of one character of {@code chars} as JSON writes it; empty when none can be written. */
    static Optional<String> grammar(CharSet chars) {
        List<String> choices = new ArrayList<>();
        CharSet plain = chars.minus(CONTROLS).minus(CharSet.chars("\"\\"));
        if (!plain.isEmpty()) {
            CharSet outside = plain.complement();
            choices.add(outside.size() < plain.size() && outside.ranges().size() < plain.ranges().size()
                    ? GbnfText.charClass(outside.ranges(), true) : GbnfText.charClass(plain.ranges(), false));
        }
        for (int c : new int[] {'"', '\\'}) {
            if (chars.contains(c)) {
                choices.add(GbnfText.literal(json(c)));
            }
        }
        CharSet controls = chars.intersect(CONTROLS);
        if (controls.size() == CONTROLS.size()) {
            choices.add("\"\\\\\" ([bfnrt] | \"u00\" [01] [0-9a-fA-F])");
        } else {
            for (int[] r : controls.ranges()) {
                for (int c = r[0]; c <= r[1]; c++) {
                    choices.add(GbnfText.literal(json(c)));
                }
            }
        }
        return choices.isEmpty() ? Optional.empty() : Optional.of(GbnfText.group(choices));
    }

    /** How JSON writes {@code c} inside a string. */
    static String json(int c) {
        String quoted = JsonString.quote(Character.toString(c));
        return quoted.substring(1, quoted.length() - 1);
    }
}
