package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Runs the cleaner over the rag-eval "articles" pages (long technical articles and references with
 * one-word section headings after listings, short news items with a headline, dateline and kicker;
 * built by scripts/rag-eval-pages from src/test/resources/rag-eval-articles/manifest.json) and checks
 * that every page keeps its article from its head to its last section. Skipped when the pages are
 * absent ({@code -Drag.eval.articles.dir=...}).
 */
class ArticlePagesTest {

    @Test
    void articlesKeepTheirHeadAndTheirLastSection() throws IOException {
        Path dir = RagEvalPages.find("articles", "rag.eval.articles.dir", "RAG_EVAL_ARTICLES_DIR");
        assumeTrue(dir != null, "rag-eval articles pages not found (build them with scripts/rag-eval-pages, "
                + "then set -Drag.eval.articles.dir=...)");
        List<RagEvalPages.Page> pages = RagEvalPages.clean(dir, new WebTextCleaner());
        assumeTrue(!pages.isEmpty());
        for (RagEvalPages.Page p : pages) {
            System.out.printf(Locale.ROOT, "  %-30s precision %.3f recall %.3f%n", p.name(), p.precision(), p.recall());
        }
        System.out.printf(Locale.ROOT, "rag-eval articles: %d pages, precision %.3f, recall %.3f%n", pages.size(),
                RagEvalPages.mean(pages, RagEvalPages.Page::precision), RagEvalPages.mean(pages, RagEvalPages.Page::recall));
        for (RagEvalPages.Page p : pages) {
            assertThat(p.recall()).as("recall of " + p.name()).isGreaterThanOrEqualTo(0.85);
        }
        assertThat(RagEvalPages.mean(pages, RagEvalPages.Page::recall)).as("mean recall").isGreaterThanOrEqualTo(0.95);
    }
}
