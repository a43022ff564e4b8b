package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Runs the cleaner over the rag-eval dev pages and checks the targets with the same measure as
 * rag-eval/score.py (word multisets; a CJK character is a word). Skipped when the pages are absent.
 */
class DevSetTest {

    @Test
    void cleanerMeetsTheTargetsOnTheDevPages() throws IOException {
        Path dir = RagEvalPages.find("dev", "rag.eval.dir", "RAG_EVAL_DIR");
        assumeTrue(dir != null, "rag-eval dev pages not found (set -Drag.eval.dir=...)");
        long start = System.nanoTime();
        List<RagEvalPages.Page> pages = RagEvalPages.clean(dir, new WebTextCleaner());
        assumeTrue(!pages.isEmpty());
        double seconds = (System.nanoTime() - start) / 1e9;
        double precision = RagEvalPages.mean(pages, RagEvalPages.Page::precision);
        double recall = RagEvalPages.mean(pages, RagEvalPages.Page::recall);
        RagEvalPages.Page worst = pages.stream().min(Comparator.comparingDouble(RagEvalPages.Page::recall)).orElseThrow();
        System.out.printf(Locale.ROOT, "rag-eval dev: %d pages, precision %.3f, recall %.3f, worst recall %.3f (%s), %.2f s%n",
                pages.size(), precision, recall, worst.recall(), worst.name(), seconds);
        assertThat(precision).as("mean precision").isGreaterThanOrEqualTo(0.88);
        assertThat(recall).as("mean recall").isGreaterThanOrEqualTo(0.95);
        assertThat(worst.recall()).as("worst page recall (" + worst.name() + ")").isGreaterThanOrEqualTo(0.80);
    }
}
