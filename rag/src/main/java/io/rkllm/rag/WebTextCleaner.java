package io.rkllm.rag;

import io.rkllm.rag.PageLine.Kind;
import java.util.List;
import java.util.function.IntBinaryOperator;

/**
 * Keeps the article of a web page's extracted text and drops the rest (menus, consent banners,
 * share widgets, link lists, related-article teasers, comment sections, footers).
 *
 * <p>Works on plain text as Open WebUI sends it (no HTML): {@link PageLines} measures and classifies
 * every line from its length, its share of function words, its punctuation and the boilerplate
 * vocabulary; {@link CodeBlocks} finds the code listings (technical pages: references, tutorials,
 * answers), which come out fenced with ``` and indented as on the page; {@link ArticleSpans} then keeps
 * the spans of prose and code that form the article (a short line between two paragraphs is a heading
 * or a list item of the article; the same line in a run of menu entries is navigation), and
 * {@link ArticleHead} the headline and dateline above its first paragraph. docs/rag.md
 * describes the passes. Stateless and thread-safe.
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
        CodeBlocks.mark(lines);
        PageLines.markSignedComments(lines);
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
            ArticleHead.keep(lines);
            CommentSection.cut(lines);
            return lines;
        }
        ArticleSpans.selectSpans(lines);
        ArticleHead.keep(lines);
        CommentSection.cut(lines);
        return lines;
    }

    // ---------------------------------------------------------------- output

    /** The kept lines; paragraphs apart by a blank line, code blocks fenced with ``` and their indentation kept. */
    private static String render(List<PageLine> lines) {
        StringBuilder sb = new StringBuilder();
        int lastParagraph = -1;
        int open = 0;
        int base = 0;
        for (int i = 0; i < lines.size(); i++) {
            PageLine l = lines.get(i);
            if (l.kind != Kind.GOOD) {
                continue;
            }
            if (open != 0 && l.block != open) {
                sb.append("\n```");
                open = 0;
                lastParagraph = -1;
            }
            if (!sb.isEmpty()) {
                sb.append(l.paragraph == lastParagraph ? "\n" : "\n\n");
            }
            if (l.code) {
                int indent = l.indent;
                if (open == 0) {
                    open = l.block;
                    int others = otherIndents(lines, i, Math::min);
                    int deepest = otherIndents(lines, i, Math::max);
                    // a first line indented deeper than all the others carries the page's own spaces before the listing
                    if (others >= 0 && indent > deepest) {
                        indent = others;
                    }
                    base = others < 0 ? indent : Math.min(indent, others);
                    sb.append("```\n");
                }
                sb.append(" ".repeat(Math.max(0, indent - base)));
            }
            sb.append(l.text);
            lastParagraph = l.paragraph;
        }
        if (open != 0) {
            sb.append("\n```");
        }
        return sb.toString();
    }

    /** The indentations of the kept lines of the block after its first line {@code first}, reduced; -1 if none. */
    private static int otherIndents(List<PageLine> lines, int first, IntBinaryOperator reduce) {
        int block = lines.get(first).block;
        int v = -1;
        for (int i = first + 1; i < lines.size() && lines.get(i).block == block; i++) {
            if (lines.get(i).kind == Kind.GOOD) {
                v = v < 0 ? lines.get(i).indent : reduce.applyAsInt(v, lines.get(i).indent);
            }
        }
        return v;
    }
}
