package io.rkllm.rag;

import io.rkllm.rag.PageLine.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a web page's text into {@link PageLine}s: normalises and splits lines (joining hard-wrapped
 * sentences), measures each line (length, function words, sentences, repetition) and gives it its
 * first class from its own features and the boilerplate vocabulary.
 */
final class PageLines {
    private PageLines() {
    }

    /** Lines shorter than this (in Latin-equivalent characters) are judged by their neighbours. */
    static final int SHORT_LENGTH = 70;

    /** Prose lines at least this long are good on their own. */
    static final int LONG_LENGTH = 200;


    /** Function-word density below which a long line is not prose (lists of names, tags, titles). */
    static final double MIN_DENSITY = 0.20;

    /** Longest line treated as a title when repeated nearby (teaser widgets repeat their headline). */
    static final int MAX_TITLE = 120;

    static List<PageLine> split(String text) {
        String t = text.replace("\r\n", "\n").replace('\r', '\n')
                .replace('\u00A0', ' ').replace("\u200B", "").replace("\uFEFF", "").replace("\t", "    ");
        String[] raw = t.split("\n", -1);
        List<PageLine> out = new ArrayList<>();
        int paragraph = 0;
        StringBuilder pending = null;
        int pendingIndent = 0;
        for (String r : raw) {
            String s = r.strip().replaceAll(" {2,}", " ");
            if (s.isEmpty()) {
                if (pending != null) {
                    out.add(new PageLine(pending.toString(), paragraph, pendingIndent));
                    pending = null;
                }
                paragraph++;
                continue;
            }
            if (pending != null && continues(pending, s)) {
                pending.append(' ').append(s);
                continue;
            }
            if (pending != null) {
                out.add(new PageLine(pending.toString(), paragraph, pendingIndent));
            }
            pending = new StringBuilder(s);
            pendingIndent = r.length() - r.stripLeading().length();
        }
        if (pending != null) {
            out.add(new PageLine(pending.toString(), paragraph, pendingIndent));
        }
        return out;
    }

    /** Whether {@code next} continues the hard-wrapped sentence in {@code prev}. */
    private static boolean continues(CharSequence prev, String next) {
        // a line opening on a dash and a lower-case word is the middle of a sentence ("dress\n-- adorned in
        // pearls -- was stolen"), however short the line before it (a paragraph's first line is often short)
        boolean dash = DASH_CONTINUATION.matcher(next).lookingAt();
        if (prev.length() < (dash ? 20 : 40)) {
            return false;
        }
        int last = Character.codePointBefore(prev, prev.length());
        if (".!?:;。！？：；".indexOf(last) >= 0 || Scripts.isCjk(last)) {
            return false;
        }
        int first = next.codePointAt(0);
        if (!dash && !Character.isLowerCase(first) && ",;".indexOf(last) < 0) {
            return false;
        }
        // the lines of a code listing are not a wrapped sentence (an SQL comment opens on "-- " too)
        String p = prev.toString();
        if (CodeLines.strong(p) || CodeLines.comment(p) || CodeLines.strong(next)) {
            return false;
        }
        return dash ? FunctionWords.density(p + " " + next) >= MIN_DENSITY : !CodeLines.comment(next);
    }

    /** A dash, then a lower-case word: "-- adorned", "— which". */
    private static final Pattern DASH_CONTINUATION = Pattern.compile("^(?:--|—|–) \\p{Ll}");

    /** Marks lines repeated in the page, and lines repeated within a few lines (widget titles, teasers). */
    static void markRepeats(List<PageLine> lines) {
        Map<String, Integer> counts = new HashMap<>();
        String[] keys = new String[lines.size()];
        for (int i = 0; i < lines.size(); i++) {
            keys[i] = key(lines.get(i).text);
            counts.merge(keys[i], 1, Integer::sum);
        }
        for (int i = 0; i < lines.size(); i++) {
            PageLine l = lines.get(i);
            l.repeated = counts.get(keys[i]) > 1;
            l.data = isData(l.text);
            // a later near copy of a line a few lines above (image alt text and caption, teaser title twice)
            for (int j = Math.max(0, i - 3); j < i; j++) {
                String a = keys[i];
                String b = keys[j];
                if (a.length() >= 15 && b.length() >= 15 && l.length <= MAX_TITLE
                        && (a.startsWith(b) || b.startsWith(a))
                        && Math.min(a.length(), b.length()) * 10 >= Math.max(a.length(), b.length()) * 7) {
                    l.nearRepeat = true;
                }
            }
        }
    }

    private static String key(String s) {
        return s.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}]+", " ").strip();
    }

    private static final Pattern SLIDE_COUNTER =
            Pattern.compile("^(?:(?:image|photo|picture|slide|foto|imagen|imagem|bild|图片|圖片|写真)\\s*)?(\\d{1,3})\\s*(?:/|of|de|von|sur)\\s*(\\d{1,3})$",
                    Pattern.CASE_INSENSITIVE);

    /**
     * A slideshow or carousel ("1/50", "2/50", ... with captions between) is not article text: every
     * line from its first counter to a few lines after its last is dropped.
     */
    static void markSlideshows(List<PageLine> lines) {
        Map<String, List<Integer>> byTotal = new HashMap<>();
        Map<String, Set<String>> distinct = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = SLIDE_COUNTER.matcher(lines.get(i).text.strip());
            if (m.matches() && Integer.parseInt(m.group(1)) <= Integer.parseInt(m.group(2)) && Integer.parseInt(m.group(2)) >= 4) {
                byTotal.computeIfAbsent(m.group(2), k -> new ArrayList<>()).add(i);
                distinct.computeIfAbsent(m.group(2), k -> new HashSet<>()).add(m.group(1));
            }
        }
        for (Map.Entry<String, List<Integer>> e : byTotal.entrySet()) {
            if (distinct.get(e.getKey()).size() < 3) {
                continue;
            }
            List<Integer> at = e.getValue();
            int end = Math.min(lines.size() - 1, at.get(at.size() - 1) + 3);
            for (int i = at.get(0); i <= end; i++) {
                PageLine l = lines.get(i);
                l.boiler = true;
                l.initial = l.kind = Kind.BAD;
            }
        }
    }

    /**
     * Comments under a post ("the comment", "– author", "Jan 5 '15 at 5:15", with its vote count above):
     * dropped as junk, not as boilerplate, since they sit between the answers of a Q&A page and must not
     * cut it into pieces.
     */
    static void markSignedComments(List<PageLine> lines) {
        for (int i = 1; i + 1 < lines.size(); i++) {
            if (!Boilerplate.isSignedComment(lines.get(i).text, lines.get(i + 1).text)) {
                continue;
            }
            int from = i;
            if (!lines.get(i - 1).code) {
                from = i - 1;
                if (from > 0 && CodeLines.lineNumber(lines.get(from - 1).text) >= 0) {
                    from--; // the comment's votes
                }
            }
            for (int k = from; k <= i + 1; k++) {
                PageLine l = lines.get(k);
                l.junk = true;
                l.initial = l.kind = Kind.BAD;
            }
        }
    }

    /** The literal list marker a line starts with ('1' for any numbered item), or 0. */
    static char listMarker(String s) {
        if (s.length() < 3) {
            return 0;
        }
        char c = s.charAt(0);
        if ("-*+•·–—▪►✓◦".indexOf(c) >= 0 && s.charAt(1) == ' ' && !Character.isWhitespace(s.charAt(2))) {
            return c == '–' || c == '—' ? '-' : c;
        }
        int d = 0;
        while (d < s.length() && d < 3 && Character.isDigit(s.charAt(d))) {
            d++;
        }
        if (d > 0 && d + 2 < s.length() && (s.charAt(d) == '.' || s.charAt(d) == ')') && s.charAt(d + 1) == ' '
                && Character.isLetter(s.charAt(d + 2))) {
            return '1';
        }
        return 0;
    }

    /** Source code or formulas: symbols that navigation labels do not contain. */
    static boolean isCode(String s) {
        for (int i = 0; i < s.length(); i++) {
            if ("(){}[];=<>*+|\\/_#$%&~^`─│┼".indexOf(s.charAt(i)) >= 0) {
                return true;
            }
        }
        return !s.isEmpty() && Character.isLowerCase(s.charAt(0)) && s.strip().endsWith(",");
    }

    /** Numbers, measurements, table cells: lines whose value is in their digits. */
    static boolean isData(String s) {
        int digits = 0;
        int letters = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isDigit(c)) {
                digits++;
            } else if (Character.isLetter(c)) {
                letters++;
            }
        }
        return digits > 0 && digits * 3 >= letters;
    }

    static Kind classify(PageLine l) {
        String t = l.text;
        l.junk = Boilerplate.isTexAnnotation(t) || Boilerplate.isPostMeta(t);
        l.boiler = Boilerplate.isUrl(t) || Boilerplate.hasStrongPhrase(t) || Boilerplate.isCounterOrCredit(t)
                || (l.length < 250 && (Boilerplate.isLabel(t) || Boilerplate.hasPhrase(t)))
                || (l.length < 100 && Boilerplate.isStaleDate(t))
;
        if (l.boiler || l.nearRepeat || l.junk) {
            return Kind.BAD;
        }
        if (l.length < SHORT_LENGTH) {
            return Kind.SHORT;
        }
        double d = l.density;
        if (d >= SentenceMeasures.PROSE_DENSITY) {
            return l.length >= LONG_LENGTH || (l.sentence && l.length >= 120) ? Kind.GOOD : Kind.NEAR_GOOD;
        }
        if (d >= MIN_DENSITY) {
            return Kind.NEAR_GOOD;
        }
        // Chinese prose can be short of particles; a tag list is full of separators
        if (Scripts.countCjk(t) * 2 > t.length() && separators(t) <= 2) {
            return Kind.NEAR_GOOD;
        }
        return Kind.BAD;
    }

    private static int separators(String t) {
        int n = 0;
        for (int i = 0; i < t.length(); i++) {
            if (",，、|/·;；".indexOf(t.charAt(i)) >= 0) {
                n++;
            }
        }
        return n;
    }

    /** Good or near-good, or a short full sentence ("No other browser gives you so much choice."). */
    static boolean proseLike(PageLine l) {
        return l.initial == Kind.GOOD || l.initial == Kind.NEAR_GOOD
                || (l.initial == Kind.SHORT && l.sentence && l.words >= 5 && l.density >= SentenceMeasures.PROSE_DENSITY);
    }

    /** Short lines that read as menu entries or headlines: no sentence, no numbers, capitalised words or few function words. */
    static boolean titleLike(PageLine l) {
        if (l.length >= SHORT_LENGTH || l.sentence || l.data || isCode(l.text)) {
            return false;
        }
        int letters = 0;
        for (int i = 0; i < l.text.length() && letters < 2; i++) {
            if (Character.isLetter(l.text.charAt(i))) {
                letters++;
            }
        }
        if (letters < 2) {
            return false;
        }
        if (l.density < 0.25) {
            return true;
        }
        int words = 0;
        int caps = 0;
        for (String w : l.text.split("\\s+")) {
            if (!w.isEmpty() && Character.isLetter(w.codePointAt(0))) {
                words++;
                if (Character.isUpperCase(w.codePointAt(0))) {
                    caps++;
                }
            }
        }
        return words > 0 && caps * 10 >= words * 6;
    }

    /** A line of symbols or a small number: no evidence either way. */
    static boolean neutral(PageLine l) {
        if (l.length > 8) {
            return false;
        }
        for (int i = 0; i < l.text.length(); i++) {
            if (Character.isLetter(l.text.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
