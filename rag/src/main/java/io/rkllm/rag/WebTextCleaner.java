package io.rkllm.rag;

import io.rkllm.rag.PageLine.Kind;
import java.util.List;

/**
 * Keeps the article of a web page's extracted text and drops the rest (menus, consent banners,
 * share widgets, link lists, related-article teasers, comment sections, footers).
 *
 * <p>Works on plain text as Open WebUI sends it (no HTML): {@link PageLines} measures and classifies
 * every line from its length, its share of function words, its punctuation and the boilerplate
 * vocabulary; {@link ArticleSpans} then keeps the spans of prose that form the article (a short line
 * between two paragraphs is a heading or a list item of the article; the same line in a run of menu
 * entries is navigation). docs/rag.md describes the passes. Stateless and thread-safe.
 */
public final class WebTextCleaner {

    /** Pages shorter than this (characters) are nearly all content: only explicit boilerplate is removed. */
    static final int SMALL_PAGE = 1500;

    public WebTextCleaner() {
    }

    /** Returns the article text of {@code pageText}; text with no detectable boilerplate comes back nearly unchanged. */
    public String clean(String pageText) {
        return render(classifyLines(pageText));
    }

    /** The lines of the page with their final classification (GOOD = kept). */
    List<PageLine> classifyLines(String pageText) {
        List<PageLine> lines = PageLines.split(pageText);
        if (lines.isEmpty()) {
            return lines;
        }
        PageLines.markRepeats(lines);
        for (PageLine l : lines) {
            l.initial = l.kind = PageLines.classify(l);
        }
        PageLines.markSlideshows(lines);
        int chars = 0;
        for (PageLine l : lines) {
            chars += l.text.length();
        }
        if (chars < SMALL_PAGE) {
            for (PageLine l : lines) {
                l.kind = Kind.BAD;
            }
            ArticleSpans.keepLoose(lines);
            ArticleSpans.trimEdges(lines);
            ArticleSpans.cutComments(lines);
            return lines;
        }
        ArticleSpans.selectSpans(lines);
        ArticleSpans.cutComments(lines);
        return lines;
    }

    // ---------------------------------------------------------------- output

    private static String render(List<PageLine> lines) {
        StringBuilder sb = new StringBuilder();
        int lastParagraph = -1;
        for (PageLine l : lines) {
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
