package io.rkllm.rag;

import io.rkllm.rag.PageLine.Kind;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Keeps the head of an article above its first kept paragraph: the headline, the dateline or byline, a
 * kicker ("EXCLUSIVE") and a lead too weak to anchor a span (a sentence without its full stop). None of
 * them is prose, so the spans start below them; on a short news item they are a good part of what it says
 * (who, when, about what). A long article says what its headline says in its own paragraphs, and there the
 * head is left to the spans. Only a dateline makes the lines above the article its head: without one,
 * titles right above the first paragraph are as likely a box of other stories.
 */
final class ArticleHead {
    private ArticleHead() {
    }

    /** Kept text (characters) under which an article is a short item whose head is kept: about 300 words. */
    static final int SHORT_ITEM = 2000;

    /** Lines of prose between the head and the first kept paragraph (a lead in two or three lines). */
    static final int LEAD_LINES = 3;

    /** Lines between the dateline and the lead (a kicker, a photo credit); more is a widget (a video, "Up next"). */
    static final int BELOW_DATELINE = 2;

    /** Lines from the dateline up to the headline (a tag or a byline may come between). */
    static final int HEADLINE_REACH = 3;

    /** A line of the head is short: a headline, a dateline, a kicker. */
    static final int MAX_HEAD_LINE = 120;

    private static final String MONTHS = "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
            + "|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
            + "|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre"
            + "|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre"
            + "|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|dezembro"
            + "|januar|februar|märz|juni|juli|oktober|dezember"
            + "|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre";

    /** A date (month name and a number, or all digits) or a byline. */
    private static final Pattern DATELINE = Pattern.compile(
            "\\b(?:" + MONTHS + ")\\.?\\s+\\d{1,4}\\b|\\b\\d{1,2}\\.?\\s+(?:de\\s+)?(?:" + MONTHS + ")\\b"
            + "|\\b\\d{1,2}[/.-]\\d{1,2}[/.-]\\d{2,4}\\b|\\b\\d{4}[/.-]\\d{1,2}[/.-]\\d{1,2}\\b|\\d{4}年\\d{1,2}月\\d{1,2}日"
            + "|^(?:(?:posted|written|published|reported)\\s+)?(?:by|par|por|von|di|door)\\s+\\p{Lu}",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);

    /** Whether {@code line} dates or signs an article: "November 18, 2019 | 4:10pm", "2/26/2015 7:11 AM", "By Ann Lee". */
    static boolean isDateline(String line) {
        return line.length() <= 100 && DATELINE.matcher(line).find();
    }

    /** Marks the head of a short article above its first kept line as kept, when a dateline shows there is one. */
    static void keep(List<PageLine> lines) {
        int first = 0;
        while (first < lines.size() && lines.get(first).kind != Kind.GOOD) {
            first++;
        }
        int kept = 0;
        for (PageLine l : lines) {
            if (l.kind == Kind.GOOD) {
                kept += l.length;
            }
        }
        if (first == lines.size() || kept >= SHORT_ITEM) {
            return;
        }
        int top = first;
        while (top > 0 && first - top < LEAD_LINES && usable(lines.get(top - 1)) && PageLines.proseLike(lines.get(top - 1))) {
            top--;
        }
        int dateline = -1;
        for (int j = top - 1; j >= 0 && top - 1 - j <= BELOW_DATELINE && headLine(lines.get(j)); j--) {
            if (isDateline(lines.get(j).text)) {
                dateline = j;
                break;
            }
        }
        if (dateline < 0) {
            return;
        }
        int start = dateline;
        for (int j = dateline - 1; j >= 0 && dateline - j <= HEADLINE_REACH && headLine(lines.get(j)); j--) {
            if (lines.get(j).words >= 3 && !isDateline(lines.get(j).text)) {
                start = j;
                // a headline set in several lines (a tag, the title, a subtitle in one heading)
                while (start > 0 && lines.get(start - 1).paragraph == lines.get(j).paragraph && headLine(lines.get(start - 1))) {
                    start--;
                }
                break;
            }
        }
        for (int k = start; k < first; k++) {
            lines.get(k).kind = Kind.GOOD;
        }
    }

    /** A line that can belong to the head: short, and no boilerplate, menu, code or heading of another section. */
    private static boolean headLine(PageLine l) {
        return usable(l) && l.length <= MAX_HEAD_LINE && !Boilerplate.isTeaserHeading(l.text);
    }

    private static boolean usable(PageLine l) {
        return !l.boiler && !l.nav && !l.junk && !l.nearRepeat && !l.code && !Boilerplate.isCommentsHeading(l.text);
    }
}
