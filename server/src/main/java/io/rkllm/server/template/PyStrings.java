package io.rkllm.server.template;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python's string methods, which chat templates call ({@code content.startswith('<tool_response>')},
 * {@code content.split('</think>')[-1].lstrip('\n')}) and Jinjava, a Java engine, does not have: a Java string has
 * no {@code startswith}, and its {@code split} takes a regular expression. Resolved before Jinjava's own resolver;
 * anything else is left to it.
 */
final class PyStrings extends ELResolver {

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] types, Object[] params) {
        if (!(base instanceof String s) || method == null) {
            return null;
        }
        Object[] args = params == null ? new Object[0] : params;
        Object result = call(s, method.toString(), args);
        if (result != NOT_MINE) {
            context.setPropertyResolved(true);
        }
        return result == NOT_MINE ? null : result;
    }

    private static final Object NOT_MINE = new Object();

    private static Object call(String s, String method, Object[] args) {
        return switch (method) {
            case "startswith" -> args.length == 1 && s.startsWith(str(args[0]));
            case "endswith" -> args.length == 1 && s.endsWith(str(args[0]));
            case "strip" -> strip(s, args, true, true);
            case "lstrip" -> strip(s, args, true, false);
            case "rstrip" -> strip(s, args, false, true);
            case "split" -> split(s, args);
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower" -> s.toLowerCase(Locale.ROOT);
            case "title" -> title(s);
            case "capitalize" -> s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT)
                    + s.substring(1).toLowerCase(Locale.ROOT);
            case "replace" -> args.length >= 2 ? s.replace(str(args[0]), str(args[1])) : NOT_MINE;
            case "find" -> args.length == 1 ? (long) s.indexOf(str(args[0])) : NOT_MINE;
            case "count" -> args.length == 1 ? count(s, str(args[0])) : NOT_MINE;
            case "isspace" -> !s.isEmpty() && s.isBlank();
            case "isdigit" -> !s.isEmpty() && s.chars().allMatch(Character::isDigit);
            default -> NOT_MINE;
        };
    }

    private static String str(Object o) {
        return o == null ? "" : o.toString();
    }

    /** Python's strip: whitespace, or any of the given characters, from one or both ends. */
    private static String strip(String s, Object[] args, boolean left, boolean right) {
        String chars = args.length > 0 && args[0] != null ? args[0].toString() : null;
        int from = 0;
        int to = s.length();
        while (left && from < to && strips(s.charAt(from), chars)) {
            from++;
        }
        while (right && to > from && strips(s.charAt(to - 1), chars)) {
            to--;
        }
        return s.substring(from, to);
    }

    private static boolean strips(char c, String chars) {
        return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0;
    }

    /** Python's split: by a literal separator (at most {@code maxsplit} times), or by runs of whitespace. */
    private static List<String> split(String s, Object[] args) {
        String separator = args.length > 0 && args[0] != null ? args[0].toString() : null;
        int max = args.length > 1 && args[1] instanceof Number n ? n.intValue() : -1;
        List<String> parts = new ArrayList<>();
        if (separator == null) {
            for (String part : s.strip().split("\\s+", max < 0 ? 0 : max + 1)) {
                if (!part.isEmpty()) {
                    parts.add(part);
                }
            }
            return parts;
        }
        if (separator.isEmpty()) {
            throw new IllegalArgumentException("empty separator");
        }
        int from = 0;
        int at;
        while ((max < 0 || parts.size() < max) && (at = s.indexOf(separator, from)) >= 0) {
            parts.add(s.substring(from, at));
            from = at + separator.length();
        }
        parts.add(s.substring(from));
        return parts;
    }

    private static long count(String s, String sub) {
        if (sub.isEmpty()) {
            return s.length() + 1L;
        }
        long n = 0;
        for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) {
            n++;
        }
        return n;
    }

    private static String title(String s) {
        StringBuilder out = new StringBuilder(s.length());
        boolean start = true;
        for (char c : s.toCharArray()) {
            out.append(start ? Character.toUpperCase(c) : Character.toLowerCase(c));
            start = !Character.isLetter(c);
        }
        return out.toString();
    }

    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {
        // never resolves a property
    }

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return true;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return null;
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return null;
    }
}
