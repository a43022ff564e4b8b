package io.rkllm.rag;

import io.rkllm.rag.PageLine.Kind;
import java.util.List;

/** A page's comment section, found and cut: what follows the article's end under a heading of comments. */
final class CommentSection {
    private CommentSection() {
    }

    /**
     * Drops a comment section: from its heading once most of the article lies before it and comments
     * follow it. A heading of the comments' vocabulary with the article going on below it ("Response",
     * "Comments" naming an API type in a reference or a tutorial) is a section of the article: the
     * comment marks of the page's real comment section further down do not make it one.
     */
    static void cut(List<PageLine> lines) {
        int total = 0;
        for (PageLine l : lines) {
            if (l.kind == Kind.GOOD) {
                total += l.length;
            }
        }
        int before = 0;
        for (int i = 0; i < lines.size(); i++) {
            PageLine l = lines.get(i);
            if ((before * 2 >= total || before >= 1500) && Boilerplate.isCommentsHeading(l.text)
                    && marksAfter(lines, i) >= 2 && !articleGoesOn(lines, i, firstMarkAfter(lines, i))) {
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

    /**
     * Whether the article's own text goes on between a heading and the first comment mark below it: a
     * listing, or prose in two or more paragraphs. What comes between a comment section's heading and its
     * first mark is a form, an author's name or the body of the first comment.
     */
    private static boolean articleGoesOn(List<PageLine> lines, int heading, int firstMark) {
        int paragraphs = 0;
        int last = -1;
        for (int j = heading + 1; j < firstMark; j++) {
            PageLine l = lines.get(j);
            if (l.kind != Kind.GOOD) {
                continue;
            }
            if (l.code) {
                return true;
            }
            if (PageLines.proseLike(l) && l.sentence && l.paragraph != last) {
                paragraphs++;
                last = l.paragraph;
            }
        }
        return paragraphs >= 2;
    }

    /** The first comment mark after {@code from}, or the number of lines if none. */
    private static int firstMarkAfter(List<PageLine> lines, int from) {
        for (int j = from + 1; j < lines.size(); j++) {
            if (Boilerplate.isCommentMark(lines.get(j).text)) {
                return j;
            }
        }
        return lines.size();
    }

    private static int marksAfter(List<PageLine> lines, int from) {
        int n = 0;
        for (int j = from + 1; j < lines.size(); j++) {
            if (Boilerplate.isCommentMark(lines.get(j).text)) {
                n++;
            }
        }
        return n;
    }
}
