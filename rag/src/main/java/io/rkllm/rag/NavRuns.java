package io.rkllm.rag;

import java.util.List;

/** Menus in a page's lines: runs of title-like or boilerplate lines, marked as navigation. */
final class NavRuns {
    private NavRuns() {
    }

    /** Consecutive title-like lines from this count on form a menu. */
    static final int NAV_RUN = 8;

    /**
     * Marks runs of NAV_RUN or more title-like or boilerplate lines as navigation; symbol lines and
     * small numbers between them ("►", "(11)", "2017") neither count nor interrupt the run.
     */
    static void mark(List<PageLine> lines, boolean[] anchor) {
        int i = 0;
        while (i < lines.size()) {
            int j = i;
            int members = 0;
            int lastMember = i - 1;
            while (j < lines.size() && !anchor[j]) {
                PageLine l = lines.get(j);
                if (l.boiler || PageLines.titleLike(l)) {
                    members++;
                    lastMember = j;
                } else if (!PageLines.neutral(l)) {
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

    /** The navigation lines in [from, to). */
    static int count(List<PageLine> lines, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            if (lines.get(i).nav) {
                n++;
            }
        }
        return n;
    }
}
