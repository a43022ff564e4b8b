package io.rkllm.server.models;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Model id rules. An id is lower case and uses only {@code [a-z0-9._:-]}: it is safe in a URL path
 * segment ({@code /v1/models/{id}}) without escaping, and never contains {@code /}.
 */
public final class ModelIds {

    /** Longest id produced by {@link #sanitize}. */
    public static final int MAX_LENGTH = 128;

    private ModelIds() {
    }

    /**
     * Turns a folder or file name into an id: accents are dropped ({@code é} becomes {@code e}), letters
     * are lower-cased, every other character outside {@code [a-z0-9._:-]} becomes {@code -}, runs of
     * {@code -} collapse to one, and {@code - . _ :} are trimmed from both ends (so an id never starts with
     * a dot). The result is at most {@link #MAX_LENGTH} characters and may be empty (for a name made only
     * of symbols or non-Latin script); callers choose a fallback.
     */
    public static String sanitize(String raw) {
        String decomposed = Normalizer.normalize(raw, Normalizer.Form.NFKD).replaceAll("\\p{M}+", "");
        String lower = decomposed.toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(lower.length());
        lower.codePoints().forEach(cp -> {
            boolean allowed = (cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9')
                    || cp == '.' || cp == '_' || cp == ':' || cp == '-';
            char c = allowed ? (char) cp : '-';
            if (c == '-' && !out.isEmpty() && out.charAt(out.length() - 1) == '-') {
                return;
            }
            out.append(c);
        });
        String id = trimSeparators(out.toString());
        if (id.length() > MAX_LENGTH) {
            id = trimSeparators(id.substring(0, MAX_LENGTH));
        }
        return id;
    }

    /** True when {@code candidate} is already a valid id (sanitising it changes nothing). */
    public static boolean isValid(String candidate) {
        return !candidate.isEmpty() && sanitize(candidate).equals(candidate);
    }

    /**
     * Makes ids unique, keeping the order: the first occurrence of an id keeps it, later ones get
     * {@code -2}, {@code -3}, ... (skipping any id that appears anywhere in the list). Deterministic for a
     * given order.
     */
    static List<String> uniquify(List<String> ids) {
        Set<String> taken = new HashSet<>(ids);
        Set<String> assigned = new HashSet<>();
        List<String> result = new ArrayList<>(ids.size());
        for (String id : ids) {
            if (assigned.add(id)) {
                result.add(id);
                continue;
            }
            int n = 2;
            String candidate = id + "-" + n;
            while (taken.contains(candidate) || assigned.contains(candidate)) {
                n++;
                candidate = id + "-" + n;
            }
            assigned.add(candidate);
            taken.add(candidate);
            result.add(candidate);
        }
        return result;
    }

    private static String trimSeparators(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && isSeparator(s.charAt(start))) {
            start++;
        }
        while (end > start && isSeparator(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }

    private static boolean isSeparator(char c) {
        return c == '-' || c == '.' || c == '_' || c == ':';
    }
}
