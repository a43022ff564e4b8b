package io.rkllm.server.models;

import java.util.Locale;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a context length from a folder or file name: {@code -4k}, {@code _8k}, {@code -16K},
 * {@code ctx4096}, {@code ctx-8192}, {@code ctx8k}, {@code 4096ctx}. A bare number such as {@code 4096} is
 * not a hint (it could be anything); {@code k} means 1024.
 */
public final class ContextLengthHints {

    /** Smallest value a name may set. */
    static final int MIN = 512;
    /** Largest value a name may set: names such as {@code Phi-3-mini-128k} describe the original model's
     *  window, not what the {@code .rkllm} file was converted for. Larger values need a sidecar. */
    static final int MAX = 32768;

    // Name parts are separated by - _ . space or brackets; a part may be "4k", "ctx4096", "ctx4k", "4096ctx",
    // or "ctx" followed by a number part.
    private static final Pattern HINT = Pattern.compile(
            "(?<![a-z0-9])(?:ctx[-_ ]?(\\d{1,7})(k?)|(\\d{1,3})k|(\\d{3,7})ctx)(?![a-z0-9])");

    private ContextLengthHints() {
    }

    /** The last hint in the name, in tokens, if any lies within [{@link #MIN}, {@link #MAX}]. */
    public static OptionalInt fromName(String name) {
        OptionalInt raw = rawFromName(name);
        return raw.isPresent() && raw.getAsInt() >= MIN && raw.getAsInt() <= MAX ? raw : OptionalInt.empty();
    }

    /** The last hint in the name, in tokens, without the plausibility bounds. */
    static OptionalInt rawFromName(String name) {
        Matcher m = HINT.matcher(name.toLowerCase(Locale.ROOT));
        OptionalInt found = OptionalInt.empty();
        while (m.find()) {
            long value;
            if (m.group(1) != null) {
                value = Long.parseLong(m.group(1)) * (m.group(2).isEmpty() ? 1 : 1024);
            } else if (m.group(3) != null) {
                value = Long.parseLong(m.group(3)) * 1024;
            } else {
                value = Long.parseLong(m.group(4));
            }
            if (value > 0 && value <= Integer.MAX_VALUE) {
                found = OptionalInt.of((int) value);
            }
        }
        return found;
    }
}
