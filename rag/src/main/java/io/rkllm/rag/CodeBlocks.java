package io.rkllm.rag;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the code blocks of a page (its {@code <pre>} listings, flattened to lines) and the column of
 * line numbers a highlighter puts beside them. A block grows from a line that is certainly code
 * ({@link CodeLines#strong}) over the lines around it that can be code: within a paragraph any line that
 * is not a sentence of prose (and a sentence squeezed between code lines, a docstring); across a blank
 * line only a line that is itself code, a comment or a brace, since a code listing's blank lines are
 * rare and the text after a listing starts a new paragraph. Gutter numbers are dropped: they are not
 * part of the code and, without their column, they read as noise.
 */
final class CodeBlocks {
    private CodeBlocks() {
    }

    /** A column of line numbers this long (1, 2, 3 ... each on its own line) is a listing's gutter. */
    static final int GUTTER_RUN = 3;

    /** A prose-like line inside a code block must have code again within this many lines (a docstring). */
    static final int INTERIOR_REACH = 3;

    /** Marks code lines ({@code code}, {@code block}) and gutter numbers ({@code junk}, BAD). */
    static void mark(List<PageLine> lines) {
        markGutters(lines);
        int n = lines.size();
        boolean[] strong = new boolean[n];
        for (int i = 0; i < n; i++) {
            PageLine l = lines.get(i);
            strong[i] = !l.junk && CodeLines.strong(l.text);
        }
        int block = 0;
        int i = 0;
        while (i < n) {
            if (!strong[i] || lines.get(i).code) {
                i++;
                continue;
            }
            int from = i;
            int to = i;
            while (from > 0 && extendsBack(lines, strong, from - 1)) {
                from--;
            }
            while (to + 1 < n) {
                int next = extendsForward(lines, strong, to);
                if (next < 0) {
                    break;
                }
                to = next;
            }
            int strongLines = 0;
            int braceLines = 0;
            for (int k = from; k <= to; k++) {
                if (strong[k]) {
                    strongLines++;
                    if (CodeLines.braces(lines.get(k).text)) {
                        braceLines++;
                    }
                }
            }
            if (strongLines > braceLines) {
                block++;
                for (int k = from; k <= to; k++) {
                    PageLine l = lines.get(k);
                    if (!l.junk) {
                        l.code = true;
                        l.block = block;
                        l.boiler = false;
                    }
                }
            }
            i = to + 1;
        }
        // listings that follow each other with nothing between are read as one
        for (int k = 1; k < n; k++) {
            PageLine prev = lines.get(k - 1);
            PageLine l = lines.get(k);
            if (prev.code && l.code && prev.block != l.block) {
                int from = l.block;
                for (int j = k; j < n && lines.get(j).code && lines.get(j).block == from; j++) {
                    lines.get(j).block = prev.block;
                }
            }
        }
    }

    /** Whether the line before a block belongs to it. */
    private static boolean extendsBack(List<PageLine> lines, boolean[] strong, int i) {
        PageLine l = lines.get(i);
        PageLine after = lines.get(i + 1);
        if (l.code || l.boiler && !strong[i]) {
            return false;
        }
        if (l.junk) {
            return true; // a gutter number: skipped over, stays dropped
        }
        if (l.paragraph == after.paragraph) {
            return CodeLines.compatible(l.text);
        }
        return strong[i] || CodeLines.comment(l.text);
    }

    /** The last line of the block once the line after {@code end} joins it (a squeezed sentence may take several), or -1. */
    private static int extendsForward(List<PageLine> lines, boolean[] strong, int end) {
        int i = end + 1;
        PageLine l = lines.get(i);
        PageLine before = lines.get(end);
        if (l.code || l.boiler && !strong[i]) {
            return -1;
        }
        if (l.junk) {
            return i;
        }
        if (l.paragraph != before.paragraph) {
            return strong[i] || CodeLines.comment(l.text) || CodeLines.braces(l.text) ? i : -1;
        }
        if (CodeLines.compatible(l.text)) {
            return i;
        }
        // a sentence inside a listing (a docstring, a message): code follows in the same paragraph
        for (int k = i + 1; k < lines.size() && k <= i + INTERIOR_REACH; k++) {
            PageLine m = lines.get(k);
            if (m.paragraph != l.paragraph || m.boiler) {
                return -1;
            }
            if (strong[k]) {
                return k;
            }
        }
        return -1;
    }

    /** Listings of two lines or more from which a page is a technical page (or one listing of TECHNICAL_LINES). */
    static final int TECHNICAL_BLOCKS = 2;

    /** Lines of a single listing that make a page technical. */
    static final int TECHNICAL_LINES = 8;

    /**
     * Whether the page is technical (a tutorial, a reference, an answer with code): then short lines that
     * repeat ("Parameters", "Type", "Returns", "Example") are the structure of its entries, not widgets,
     * and its prose, broken up by listings, comes in short stretches.
     */
    static boolean technical(List<PageLine> lines) {
        Map<Integer, Integer> sizes = new HashMap<>();
        for (PageLine l : lines) {
            if (l.code) {
                sizes.merge(l.block, 1, Integer::sum);
            }
        }
        int blocks = 0;
        for (int size : sizes.values()) {
            if (size >= TECHNICAL_LINES) {
                return true;
            }
            if (size >= 2) {
                blocks++;
            }
        }
        return blocks >= TECHNICAL_BLOCKS;
    }

    /** Runs of GUTTER_RUN or more lines counting up by one (12, 13, 14 ...) are a listing's line numbers. */
    private static void markGutters(List<PageLine> lines) {
        int i = 0;
        while (i < lines.size()) {
            int start = CodeLines.lineNumber(lines.get(i).text);
            int j = i + 1;
            while (start >= 0 && j < lines.size() && CodeLines.lineNumber(lines.get(j).text) == start + (j - i)) {
                j++;
            }
            if (start >= 0 && j - i >= GUTTER_RUN) {
                for (int k = i; k < j; k++) {
                    PageLine l = lines.get(k);
                    l.junk = true;
                    l.initial = l.kind = PageLine.Kind.BAD;
                }
            }
            i = Math.max(j, i + 1);
        }
    }
}
