package io.rkllm.rag;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Keeps the article of a web page's extracted text and drops the rest (menus, consent banners,
 * share widgets, link lists, related-article teasers, comment sections, footers).
 *
 * <p>Works on plain text as Open WebUI sends it (no HTML): lines are classified from their length,
 * their share of function words, their punctuation and boilerplate vocabulary, then re-classified
 * from their neighbours (a short line between two paragraphs of prose is a heading or a list item of
 * the article; the same line between two menus is navigation). Stateless and thread-safe.
 */
public final class WebTextCleaner {

    enum Kind { GOOD, NEAR_GOOD, SHORT, BAD }

    /** One logical line of the page with its features. */
    static final class Line {
        final String text;
        final int paragraph;
        final int length;
        final int words;
        final double density;
        final boolean sentence;
        Kind kind;
        Kind initial;
        boolean data;
        boolean repeated;
        boolean nearRepeat;
        boolean boiler;
        boolean nav;
        /** Markup residue: dropped, but no sign of boilerplate around it. */
        boolean junk;

        Line(String text, int paragraph) {
            this.text = text;
            this.paragraph = paragraph;
            this.length = Scripts.effectiveLength(text);
            this.words = Scripts.countWords(text);
            this.density = FunctionWords.density(text);
            this.sentence = hasSentencePunctuation(text);
        }

        @Override
        public String toString() {
            return kind + "/" + initial + " " + text;
        }
    }

    /** Lines shorter than this (in Latin-equivalent characters) are judged by their neighbours. */
    static final int SHORT_LENGTH = 70;
    /** Prose lines at least this long are good on their own. */
    static final int LONG_LENGTH = 200;
    /** Function-word density above which a line reads as prose. */
    static final double PROSE_DENSITY = 0.30;
    /** Function-word density below which a long line is not prose (lists of names, tags, titles). */
    static final double MIN_DENSITY = 0.20;

    /** Longest line treated as a title when repeated nearby (teaser widgets repeat their headline). */
    static final int MAX_TITLE = 120;
    /** Pages shorter than this (characters) are nearly all content: only explicit boilerplate is removed. */
    static final int SMALL_PAGE = 1500;

    public WebTextCleaner() {
    }

    /** Returns the article text of {@code pageText}; text with no detectable boilerplate comes back nearly unchanged. */
    public String clean(String pageText) {
        return render(classifyLines(pageText));
    }

    /** The lines of the page with their final classification (GOOD = kept). */
    List<Line> classifyLines(String pageText) {
        List<Line> lines = split(pageText);
        if (lines.isEmpty()) {
            return lines;
        }
        markRepeats(lines);
        for (Line l : lines) {
            l.initial = l.kind = classify(l);
        }
        markSlideshows(lines);
        int chars = 0;
        for (Line l : lines) {
            chars += l.text.length();
        }
        if (chars < SMALL_PAGE) {
            for (Line l : lines) {
                l.kind = Kind.BAD;
            }
            keepLoose(lines);
            trimEdges(lines);
            cutComments(lines);
            return lines;
        }
        selectSpans(lines);
        cutComments(lines);
        return lines;
    }

    // ---------------------------------------------------------------- splitting

    static List<Line> split(String text) {
        String t = text.replace("\r\n", "\n").replace('\r', '\n')
                .replace('\u00A0', ' ').replace("\u200B", "").replace("\uFEFF", "").replace('\t', ' ');
        String[] raw = t.split("\n", -1);
        List<Line> out = new ArrayList<>();
        int paragraph = 0;
        StringBuilder pending = null;
        for (String r : raw) {
            String s = r.strip().replaceAll(" {2,}", " ");
            if (s.isEmpty()) {
                if (pending != null) {
                    out.add(new Line(pending.toString(), paragraph));
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
                out.add(new Line(pending.toString(), paragraph));
            }
            pending = new StringBuilder(s);
        }
        if (pending != null) {
            out.add(new Line(pending.toString(), paragraph));
        }
        return out;
    }

    /** Whether {@code next} continues the hard-wrapped sentence in {@code prev}. */
    private static boolean continues(CharSequence prev, String next) {
        if (prev.length() < 40) {
            return false;
        }
        int last = Character.codePointBefore(prev, prev.length());
        if (".!?:;。！？：；".indexOf(last) >= 0 || Scripts.isCjk(last)) {
            return false;
        }
        int first = next.codePointAt(0);
        return Character.isLowerCase(first) || ",;".indexOf(last) >= 0;
    }

    static boolean hasSentencePunctuation(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '。' || c == '！' || c == '？' || c == '，' || c == '、') {
                return true;
            }
            if ((c == '.' || c == '!' || c == '?') && (i + 1 == s.length() || s.charAt(i + 1) == ' '
                    || s.charAt(i + 1) == '"' || s.charAt(i + 1) == '”' || s.charAt(i + 1) == ')')) {
                // not "Mr." style abbreviations only: require a preceding word of 2+ letters
                if (i >= 2 && Character.isLetterOrDigit(s.charAt(i - 1))) {
                    return true;
                }
                if (i >= 1 && (s.charAt(i - 1) == '"' || s.charAt(i - 1) == '”' || s.charAt(i - 1) == ')')) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- features

    /** Marks lines repeated in the page, and lines repeated within a few lines (widget titles, teasers). */
    private static void markRepeats(List<Line> lines) {
        Map<String, Integer> counts = new HashMap<>();
        String[] keys = new String[lines.size()];
        for (int i = 0; i < lines.size(); i++) {
            keys[i] = key(lines.get(i).text);
            counts.merge(keys[i], 1, Integer::sum);
        }
        for (int i = 0; i < lines.size(); i++) {
            Line l = lines.get(i);
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

    private static final java.util.regex.Pattern SLIDE_COUNTER =
            java.util.regex.Pattern.compile("^(?:\\D{0,12}\\s)?(\\d{1,3})\\s*(?:/|of|de|von|sur)\\s*(\\d{1,3})$");

    /**
     * A slideshow or carousel ("1/50", "2/50", ... with captions between) is not article text: every
     * line from its first counter to a few lines after its last is dropped.
     */
    private static void markSlideshows(List<Line> lines) {
        Map<String, List<Integer>> byTotal = new HashMap<>();
        Map<String, java.util.Set<String>> distinct = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            java.util.regex.Matcher m = SLIDE_COUNTER.matcher(lines.get(i).text.strip());
            if (m.matches() && Integer.parseInt(m.group(1)) <= Integer.parseInt(m.group(2))) {
                byTotal.computeIfAbsent(m.group(2), k -> new ArrayList<>()).add(i);
                distinct.computeIfAbsent(m.group(2), k -> new java.util.HashSet<>()).add(m.group(1));
            }
        }
        for (Map.Entry<String, List<Integer>> e : byTotal.entrySet()) {
            if (distinct.get(e.getKey()).size() < 3) {
                continue;
            }
            List<Integer> at = e.getValue();
            int end = Math.min(lines.size() - 1, at.get(at.size() - 1) + 3);
            for (int i = at.get(0); i <= end; i++) {
                Line l = lines.get(i);
                l.boiler = true;
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

    // ---------------------------------------------------------------- classification

    static Kind classify(Line l) {
        String t = l.text;
        l.junk = Boilerplate.isTexAnnotation(t);
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
        double d = Math.max(l.density, structuralDensity(l));
        if (d >= PROSE_DENSITY) {
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

    /**
     * Prose evidence that does not depend on knowing the language: mostly lower-case words with
     * sentence punctuation and a moderate number of commas (a tag list has a comma per word).
     */
    static double structuralDensity(Line l) {
        if (l.words < 8 || !l.sentence) {
            return 0;
        }
        int lower = 0;
        int cased = 0;
        int commas = 0;
        String t = l.text;
        boolean start = true;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (Character.isLetter(c)) {
                if (start && (Character.isUpperCase(c) || Character.isLowerCase(c))) {
                    cased++;
                    if (Character.isLowerCase(c)) {
                        lower++;
                    }
                }
                start = false;
            } else if (!Character.isDigit(c)) {
                start = true;
                if (c == ',' || c == '，' || c == '、') {
                    commas++;
                }
            }
        }
        if (commas > 0.25 * l.words) {
            return 0;
        }
        if (cased < 3 && Scripts.countCjk(t) == 0) {
            // a script without letter case (Korean, Arabic, Hebrew, Thai, Hindi...): sentences are the evidence
            return PROSE_DENSITY + 0.02;
        }
        if (cased < 8 || lower < 0.6 * cased) {
            return 0;
        }
        return PROSE_DENSITY + 0.02;
    }

    /** Good or near-good, or a short full sentence ("No other browser gives you so much choice."). */
    static boolean proseLike(Line l) {
        return l.initial == Kind.GOOD || l.initial == Kind.NEAR_GOOD
                || (l.initial == Kind.SHORT && l.sentence && l.words >= 5 && l.density >= PROSE_DENSITY);
    }

    /** An anchor is prose that is content on its own: a good line, or a near-good line among others. */
    private static boolean[] anchors(List<Line> lines) {
        boolean[] a = new boolean[lines.size()];
        for (int i = 0; i < lines.size(); i++) {
            Line l = lines.get(i);
            if (l.initial == Kind.GOOD) {
                a[i] = true;
            } else if (l.initial == Kind.NEAR_GOOD) {
                int support = 0;
                for (int j = Math.max(0, i - 3); j <= Math.min(lines.size() - 1, i + 3); j++) {
                    if (j != i && proseLike(lines.get(j))) {
                        support++;
                    }
                }
                // a headline has no sentence punctuation; Chinese and Japanese lines often have none either
                boolean cjk = Scripts.countCjk(l.text) * 2 > l.text.length();
                a[i] = (l.sentence || cjk || l.text.endsWith(":")) && support >= 2;
            }
        }
        // explicit lists: three or more consecutive lines with the same literal list marker
        int i = 0;
        while (i < lines.size()) {
            char m = listMarker(lines.get(i).text);
            int j = i;
            while (m != 0 && j < lines.size() && listMarker(lines.get(j).text) == m && !lines.get(j).boiler) {
                j++;
            }
            if (j - i >= 3) {
                for (int k = i; k < j; k++) {
                    a[k] = true;
                }
            }
            i = Math.max(j, i + 1);
        }
        return a;
    }

    /**
     * Groups anchors into spans separated by boilerplate-heavy gaps or menus, keeps the spans that
     * carry the article (the heaviest and those comparable to it), and inside kept spans (and between
     * consecutive kept spans) keeps every line but boilerplate, widget runs and menus.
     */
    private void selectSpans(List<Line> lines) {
        boolean[] anchor = anchors(lines);
        markNavRuns(lines, anchor);
        List<int[]> spans = new ArrayList<>();
        int start = -1;
        int prev = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (!anchor[i]) {
                continue;
            }
            if (start < 0) {
                start = i;
            } else if (gapBreaks(lines, prev + 1, i)) {
                spans.add(new int[] {start, prev});
                start = i;
            }
            prev = i;
        }
        if (start >= 0) {
            spans.add(new int[] {start, prev});
        }
        for (Line l : lines) {
            l.kind = Kind.BAD;
        }
        if (spans.isEmpty()) {
            keepLoose(lines);
            return;
        }
        int[] mass = new int[spans.size()];
        int[] count = new int[spans.size()];
        int[] close = new int[spans.size()];
        int max = 0;
        for (int s = 0; s < spans.size(); s++) {
            int last = -1;
            int between = 0;
            for (int i = spans.get(s)[0]; i <= spans.get(s)[1]; i++) {
                if (anchor[i]) {
                    mass[s] += lines.get(i).length;
                    count[s]++;
                    if (last >= 0 && (i - last <= 3 || between <= 80)) {
                        close[s]++;
                    }
                    last = i;
                    between = 0;
                } else {
                    between += lines.get(i).length;
                }
            }
            max = Math.max(max, mass[s]);
        }
        boolean[] keep = new boolean[spans.size()];
        for (int s = 0; s < spans.size(); s++) {
            keep[s] = mass[s] == max || (!introducedAsTeasers(lines, spans.get(s)[0])
                    && (mass[s] >= SPAN_SHARE_SINGLE * max
                    || (count[s] >= 2 && mass[s] >= SPAN_SHARE * max && close[s] * 2 >= count[s] - 1)));
            if (Boolean.getBoolean("rag.debug")) {
                System.err.printf("span %d-%d mass %d count %d close %d keep %s%n", spans.get(s)[0] + 1,
                        spans.get(s)[1] + 1, mass[s], count[s], close[s], keep[s]);
            }
        }
        // a span joined to a kept one by a gap without any boilerplate (a table, a list) is part of it
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int s = 0; s < spans.size(); s++) {
                boolean weight = mass[s] >= SPAN_SHARE_JOINED * max || (count[s] >= 2 && close[s] * 2 >= count[s] - 1);
                if (keep[s] || !weight || introducedAsTeasers(lines, spans.get(s)[0])) {
                    continue;
                }
                boolean left = s > 0 && keep[s - 1] && cleanGap(lines, spans.get(s - 1)[1] + 1, spans.get(s)[0]);
                boolean right = s + 1 < spans.size() && keep[s + 1]
                        && cleanGap(lines, spans.get(s)[1] + 1, spans.get(s + 1)[0]);
                if (left || right) {
                    keep[s] = true;
                    changed = true;
                }
            }
        }
        for (int s = 0; s < spans.size(); s++) {
            if (keep[s]) {
                boolean joined = s > 0 && keep[s - 1];
                int from = joined ? spans.get(s - 1)[1] + 1 : grow(lines, spans.get(s)[0], -1);
                int to = s + 1 < spans.size() && keep[s + 1] ? spans.get(s)[1] : grow(lines, spans.get(s)[1], 1);
                keepRange(lines, anchor, from, to);
            }
        }
    }

    /**
     * Extends a kept span over adjacent prose that was too weak to anchor it (short marketing sentences,
     * a lead paragraph above a photo): returns the farthest prose-like line reachable in {@code step}
     * direction through gaps of at most two lines without boilerplate.
     */
    private static int grow(List<Line> lines, int edge, int step) {
        int best = edge;
        int gap = 0;
        for (int i = edge + step; i >= 0 && i < lines.size(); i += step) {
            Line l = lines.get(i);
            if (l.boiler || l.nav || Boilerplate.isTeaserHeading(l.text) || Boilerplate.isCommentsHeading(l.text)) {
                break;
            }
            if (proseLike(l) && (l.sentence || l.text.endsWith(":"))) {
                best = i;
                gap = 0;
            } else if (++gap > 2) {
                break;
            }
        }
        return best;
    }

    /** Whether one of the few lines before a span is a "Related" / "Most read" heading. */
    private static boolean introducedAsTeasers(List<Line> lines, int start) {
        for (int i = start - 1; i >= 0 && i >= start - 4; i--) {
            if (Boilerplate.isTeaserHeading(lines.get(i).text)) {
                return true;
            }
        }
        return false;
    }

    /** A gap with hardly any boilerplate (a table, an info box, a list of features): at most 2 lines and 1 in 10. */
    private static boolean cleanGap(List<Line> lines, int from, int to) {
        int b = boilerIn(lines, from, to);
        return b == 0 || (b <= 2 && b * 10 <= to - from);
    }

    private static int boilerIn(List<Line> lines, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            if (lines.get(i).boiler) {
                n++;
            }
        }
        return n;
    }

    /** A span joined to a kept span by a boilerplate-free gap is kept from this share of the heaviest span on (or with two close anchors). */
    static final double SPAN_SHARE_JOINED = 0.1;
    /** A span lighter than this share of the heaviest one is dropped unless it has two or more anchors. */
    static final double SPAN_SHARE_SINGLE = 0.5;
    /** A span of two or more anchors lighter than this share of the heaviest one is dropped. */
    static final double SPAN_SHARE = 0.2;
    /** A menu this long is not a table of the article even between two parts of it (a country list, a site map). */
    static final int LONG_NAV_RUN = 40;
    /** Consecutive title-like lines from this count on form a menu. */
    static final int NAV_RUN = 8;

    /** Short lines that read as menu entries or headlines: no sentence, no numbers, capitalised words or few function words. */
    static boolean titleLike(Line l) {
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

    /**
     * Marks runs of NAV_RUN or more title-like or boilerplate lines as navigation; symbol lines and
     * small numbers between them ("►", "(11)", "2017") neither count nor interrupt the run.
     */
    private static void markNavRuns(List<Line> lines, boolean[] anchor) {
        int i = 0;
        while (i < lines.size()) {
            int j = i;
            int members = 0;
            int lastMember = i - 1;
            while (j < lines.size() && !anchor[j]) {
                Line l = lines.get(j);
                if (l.boiler || titleLike(l)) {
                    members++;
                    lastMember = j;
                } else if (!neutral(l)) {
                    break;
                }
                j++;
            }
            if (members >= NAV_RUN) {
                for (int k = i; k <= lastMember; k++) {
                    lines.get(k).nav = true;
                }
            }
            i = Math.max(lastMember + 1, i + 1);
        }
    }

    /** A line of symbols or a small number: no evidence either way. */
    static boolean neutral(Line l) {
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

    /**
     * On a small page kept loosely, drops the run of non-prose lines before the first sentence (and
     * after the last) when it carries boilerplate: a menu or a footer around a short text.
     */
    private static void trimEdges(List<Line> lines) {
        int first = -1;
        int last = -1;
        for (int i = 0; i < lines.size(); i++) {
            Line l = lines.get(i);
            if (proseLike(l) && (l.sentence || Scripts.countCjk(l.text) * 2 > l.text.length())) {
                if (first < 0) {
                    first = i;
                }
                last = i;
            }
        }
        if (first < 0) {
            return;
        }
        if (boilerIn(lines, 0, first) >= 2) {
            for (int i = 0; i < first; i++) {
                lines.get(i).kind = Kind.BAD;
            }
        }
        if (boilerIn(lines, last + 1, lines.size()) >= 2) {
            for (int i = last + 1; i < lines.size(); i++) {
                lines.get(i).kind = Kind.BAD;
            }
        }
    }

    /** No prose anywhere (a tiny page, a list, a page of teasers): keep what is not boilerplate. */
    private static void keepLoose(List<Line> lines) {
        for (Line l : lines) {
            if (!l.boiler && l.initial != Kind.BAD) {
                l.kind = Kind.GOOD;
            }
        }
    }

    /** Whether the non-anchor lines [from, to) separate two parts of the page rather than two paragraphs. */
    private static boolean gapBreaks(List<Line> lines, int from, int to) {
        int n = to - from;
        if (n <= 2) {
            return false;
        }
        int boiler = 0;
        int nav = 0;
        for (int i = from; i < to; i++) {
            Line l = lines.get(i);
            if (l.boiler || (l.repeated && l.length >= 3 && titleLike(l))) {
                boiler++;
            }
            if (l.nav) {
                nav++;
            }
        }
        return (boiler >= 2 && boiler * 3 >= n) || nav >= NAV_RUN;
    }

    private static void keepRange(List<Line> lines, boolean[] anchor, int from, int to) {
        int i = from;
        while (i <= to) {
            if (anchor[i]) {
                lines.get(i).kind = Kind.GOOD;
                i++;
                continue;
            }
            int j = i;
            while (j <= to && !anchor[j]) {
                j++;
            }
            // non-anchor run [i, j): a widget block if boilerplate dominates it
            int boiler = 0;
            int repeated = 0;
            for (int k = i; k < j; k++) {
                Line l = lines.get(k);
                if (l.boiler) {
                    boiler++;
                } else if (l.repeated && l.length >= 3 && l.length < SHORT_LENGTH && !l.sentence && !isCode(l.text)) {
                    repeated++;
                }
            }
            int n = j - i;
            boolean widget = (n >= 3 && boiler * 2 >= n) || (n >= 6 && (boiler + repeated) * 5 >= n * 2);
            for (int k = i; k < j; k++) {
                Line l = lines.get(k);
                boolean prose = l.sentence && proseLike(l);
                if (!l.boiler && !l.junk && !l.nearRepeat && !(widget && !l.data && !prose) && !(l.nav && n > LONG_NAV_RUN)) {
                    l.kind = Kind.GOOD;
                }
            }
            i = j;
        }
    }

    /** Drops a comment section: from its heading (or first reply marker) once most of the article lies before it. */
    private static void cutComments(List<Line> lines) {
        int total = 0;
        for (Line l : lines) {
            if (l.kind == Kind.GOOD) {
                total += l.length;
            }
        }
        int before = 0;
        for (int i = 0; i < lines.size(); i++) {
            Line l = lines.get(i);
            if ((before * 2 >= total || before >= 1500) && Boilerplate.isCommentsHeading(l.text) && marksAfter(lines, i) >= 2) {
                for (int j = i; j < lines.size(); j++) {
                    lines.get(j).kind = Kind.BAD;
                }
                return;
            }
            if (l.kind == Kind.GOOD) {
                before += l.length;
            }
        }
    }

    private static int marksAfter(List<Line> lines, int from) {
        int n = 0;
        for (int j = from + 1; j < lines.size(); j++) {
            if (Boilerplate.isCommentMark(lines.get(j).text)) {
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- output

    private static String render(List<Line> lines) {
        StringBuilder sb = new StringBuilder();
        int lastParagraph = -1;
        for (Line l : lines) {
            if (l.kind != Kind.GOOD) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append(l.paragraph == lastParagraph ? "\n" : "\n\n");
            }
            sb.append(l.text);
            lastParagraph = l.paragraph;
        }
        return sb.toString();
    }
}
