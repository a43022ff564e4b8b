package io.rkllm.rag;

import io.rkllm.rag.PageLine.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which lines of a page are the article: groups prose "anchors" into spans separated by
 * menus and boilerplate, and keeps the spans that carry the article ({@link CommentSection} cuts the comments).
 * Works on lines already measured by {@link PageLines}.
 */
final class ArticleSpans {
    private ArticleSpans() {
    }

    /** An anchor is prose that is content on its own: a good line, or a near-good line among prose or code; or a listing. */
    private static boolean[] anchors(List<PageLine> lines, boolean technical) {
        boolean[] a = new boolean[lines.size()];
        // prose on a technical page comes in short stretches between listings, headings and tables
        int needed = technical ? 1 : 2;
        Map<Integer, Integer> blockLines = new HashMap<>();
        for (PageLine l : lines) {
            if (l.code) {
                blockLines.merge(l.block, 1, Integer::sum);
            }
        }
        for (int i = 0; i < lines.size(); i++) {
            PageLine l = lines.get(i);
            if (l.code && blockLines.get(l.block) >= CODE_ANCHOR_LINES || l.initial == Kind.GOOD) {
                // a listing is the article's as much as its prose: tutorials and answers are mostly code
                // (a single line of markup may be a leftover of the page's own; it only stays inside the article)
                a[i] = true;
            } else if (l.initial == Kind.NEAR_GOOD) {
                int support = 0;
                for (int j = Math.max(0, i - 3); j <= Math.min(lines.size() - 1, i + 3); j++) {
                    if (j != i && (PageLines.proseLike(lines.get(j)) || lines.get(j).code)) {
                        support++;
                    }
                }
                // a headline has no sentence punctuation; Chinese and Japanese lines often have none either
                boolean cjk = Scripts.countCjk(l.text) * 2 > l.text.length();
                a[i] = (l.sentence || cjk || l.text.endsWith(":")) && support >= needed;
            }
        }
        // explicit lists: three or more consecutive lines with the same literal list marker
        int i = 0;
        while (i < lines.size()) {
            char m = PageLines.listMarker(lines.get(i).text);
            int j = i;
            while (m != 0 && j < lines.size() && PageLines.listMarker(lines.get(j).text) == m && !lines.get(j).boiler) {
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
    static void selectSpans(List<PageLine> lines) {
        boolean technical = CodeBlocks.technical(lines);
        boolean[] anchor = anchors(lines, technical);
        NavRuns.mark(lines, anchor);
        List<int[]> spans = new ArrayList<>();
        int start = -1;
        int prev = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (!anchor[i]) {
                continue;
            }
            if (start < 0) {
                start = i;
            } else if (gapBreaks(lines, prev + 1, i, technical)) {
                spans.add(new int[] {start, prev});
                start = i;
            }
            prev = i;
        }
        if (start >= 0) {
            spans.add(new int[] {start, prev});
        }
        for (PageLine l : lines) {
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
                    mass[s] += weight(lines.get(i));
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
        boolean listing = isListing(mass, count, close, max);
        boolean[] keep = new boolean[spans.size()];
        for (int s = 0; s < spans.size(); s++) {
            keep[s] = mass[s] == max || (!introducedAsTeasers(lines, spans.get(s)[0])
                    && ((listing && mass[s] >= SPAN_SHARE_JOINED * max)
                    || mass[s] >= SPAN_SHARE_SINGLE * max
                    || (count[s] >= 2 && mass[s] >= SPAN_SHARE * max && close[s] * 2 >= count[s] - 1)));
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
                keepRange(lines, anchor, from, to, technical);
            }
        }
    }

    /** A code block of this many lines anchors a span; a shorter one is kept only inside the article. */
    static final int CODE_ANCHOR_LINES = 2;

    /** Code weighs less than prose: a listing is long for what it says. */
    static final double CODE_WEIGHT = 0.5;

    private static int weight(PageLine l) {
        return l.code ? (int) (CODE_WEIGHT * l.length) : l.length;
    }

    /**
     * Whether the heaviest span is itself a listing (a front page, a section page): four or more
     * anchors that are mostly far apart, each a teaser's summary between a headline, a byline and a
     * photo credit. Then the page's content is its teasers, and a lighter section of teasers is as
     * much content as the heaviest one rather than a "related articles" block beside an article.
     */
    private static boolean isListing(int[] mass, int[] count, int[] close, int max) {
        for (int s = 0; s < mass.length; s++) {
            if (mass[s] == max) {
                return count[s] >= LISTING_ANCHORS && close[s] * 2 < count[s] - 1;
            }
        }
        return false;
    }

    /** Anchors the heaviest span needs before its spacing can make the page a listing. */
    static final int LISTING_ANCHORS = 4;

    /**
     * Extends a kept span over adjacent prose that was too weak to anchor it (short marketing sentences,
     * a lead paragraph above a photo) and over a one-line listing (an answer's command): returns the farthest prose-like line reachable in {@code step}
     * direction through gaps of at most two lines without boilerplate.
     */
    private static int grow(List<PageLine> lines, int edge, int step) {
        int best = edge;
        int gap = 0;
        for (int i = edge + step; i >= 0 && i < lines.size(); i += step) {
            PageLine l = lines.get(i);
            if (l.boiler || l.nav || Boilerplate.isTeaserHeading(l.text) || Boilerplate.isCommentsHeading(l.text)) {
                break;
            }
            if (l.code || PageLines.proseLike(l) && (l.sentence || l.text.endsWith(":"))) {
                best = i;
                gap = 0;
            } else if (++gap > 2) {
                break;
            }
        }
        return best;
    }

    /** Whether one of the few lines before a span is a "Related" / "Most read" heading. */
    private static boolean introducedAsTeasers(List<PageLine> lines, int start) {
        for (int i = start - 1; i >= 0 && i >= start - 4; i--) {
            if (Boilerplate.isTeaserHeading(lines.get(i).text)) {
                return true;
            }
        }
        return false;
    }

    /** A gap with hardly any boilerplate (a table, an info box, a list of features): at most 2 lines and 1 in 10. */
    private static boolean cleanGap(List<PageLine> lines, int from, int to) {
        int b = boilerIn(lines, from, to);
        return b == 0 || (b <= 2 && b * 10 <= to - from);
    }

    private static int boilerIn(List<PageLine> lines, int from, int to) {
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

    /**
     * On a small page kept loosely, drops the run of non-prose lines before the first sentence (and
     * after the last) when it carries boilerplate or is a menu: a menu or a footer around a short text.
     */
    static void trimEdges(List<PageLine> lines) {
        int first = -1;
        int last = -1;
        for (int i = 0; i < lines.size(); i++) {
            PageLine l = lines.get(i);
            if (l.code || PageLines.proseLike(l) && (l.sentence || l.text.endsWith(":") || Scripts.countCjk(l.text) * 2 > l.text.length())) {
                if (first < 0) {
                    first = i;
                }
                last = i;
            }
        }
        if (first < 0) {
            return;
        }
        NavRuns.mark(lines, new boolean[lines.size()]);
        if (boilerIn(lines, 0, first) >= 2 || NavRuns.count(lines, 0, first) >= NavRuns.NAV_RUN) {
            for (int i = 0; i < first; i++) {
                lines.get(i).kind = Kind.BAD;
            }
        }
        if (boilerIn(lines, last + 1, lines.size()) >= 2 || NavRuns.count(lines, last + 1, lines.size()) >= NavRuns.NAV_RUN) {
            for (int i = last + 1; i < lines.size(); i++) {
                lines.get(i).kind = Kind.BAD;
            }
        }
    }

    /** No prose anywhere (a tiny page, a list, a page of teasers): keep what is not boilerplate. */
    static void keepLoose(List<PageLine> lines) {
        for (PageLine l : lines) {
            if (l.code || !l.boiler && l.initial != Kind.BAD) {
                l.kind = Kind.GOOD;
            }
        }
    }

    /** Whether the non-anchor lines [from, to) separate two parts of the page rather than two paragraphs. */
    private static boolean gapBreaks(List<PageLine> lines, int from, int to, boolean technical) {
        int n = to - from;
        if (n <= 2) {
            return false;
        }
        int boiler = 0;
        int nav = 0;
        // next to a code block, repeated headings ("Parameters", "Returns", "Example") are a reference's structure
        boolean code = technical || from > 0 && lines.get(from - 1).code || to < lines.size() && lines.get(to).code;
        for (int i = from; i < to; i++) {
            PageLine l = lines.get(i);
            if (l.boiler || (!code && l.repeated && l.length >= 3 && PageLines.titleLike(l))) {
                boiler++;
            }
            if (l.nav) {
                nav++;
            }
            if (Boilerplate.isTeaserHeading(l.text) && teaserList(lines, i)) {
                return true; // a list of other pages' titles under "Related" or "Hot network questions"
            }
        }
        return (boiler >= 2 && boiler * 3 >= n) || nav >= NavRuns.NAV_RUN;
    }

    /** Titles a teaser heading must head before they are a list of other pages rather than a link or two inside the article. */
    static final int TEASER_LIST = 5;

    /** Whether the heading at {@code heading} is followed by TEASER_LIST or more short lines before any paragraph. */
    private static boolean teaserList(List<PageLine> lines, int heading) {
        int n = 0;
        for (int i = heading + 1; i < lines.size() && n < TEASER_LIST; i++) {
            PageLine l = lines.get(i);
            if (l.length >= PageLines.MAX_TITLE || l.code) {
                return false;
            }
            n++;
        }
        return n >= TEASER_LIST;
    }

    private static void keepRange(List<PageLine> lines, boolean[] anchor, int from, int to, boolean technical) {
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
                PageLine l = lines.get(k);
                if (l.boiler) {
                    boiler++;
                } else if (!technical && l.repeated && l.length >= 3 && l.length < PageLines.SHORT_LENGTH && !l.sentence
                        && !PageLines.isCode(l.text)) {
                    repeated++;
                }
            }
            int n = j - i;
            boolean widget = (n >= 3 && boiler * 2 >= n) || (n >= 6 && (boiler + repeated) * 5 >= n * 2);
            for (int k = i; k < j; k++) {
                PageLine l = lines.get(k);
                boolean prose = l.sentence && PageLines.proseLike(l);
                if (!l.boiler && !l.junk && !l.nearRepeat && !(widget && !l.data && !prose) && !(l.nav && n > LONG_NAV_RUN)) {
                    l.kind = Kind.GOOD;
                }
            }
            i = j;
        }
    }
}
