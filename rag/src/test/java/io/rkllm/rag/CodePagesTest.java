package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs the cleaner over the rag-eval "code" pages (technical pages: API references, tutorials, READMEs
 * as web pages, Q&A answers with code; built by scripts/rag-eval-pages from
 * src/test/resources/rag-eval-code/manifest.json) and checks that every page keeps its article and
 * that the listings come out fenced. Skipped when the pages are absent ({@code -Drag.eval.code.dir=...}).
 */
class CodePagesTest {

    @Test
    void technicalPagesKeepTheirProseAndTheirCodeFenced() throws IOException {
        Path dir = RagEvalPages.find("code", "rag.eval.code.dir", "RAG_EVAL_CODE_DIR");
        assumeTrue(dir != null, "rag-eval code pages not found (build them with scripts/rag-eval-pages, "
                + "then set -Drag.eval.code.dir=...)");
        List<RagEvalPages.Page> pages = RagEvalPages.clean(dir, new WebTextCleaner());
        assumeTrue(!pages.isEmpty());
        int codeLines = 0;
        int fenced = 0;
        int outputFenced = 0;
        int rightlyFenced = 0;
        for (RagEvalPages.Page p : pages) {
            Map<String, Integer> expected = counts(RagEvalPages.lines(p.expected(), true));
            Map<String, Integer> output = counts(RagEvalPages.lines(p.output(), true));
            for (Map.Entry<String, Integer> e : expected.entrySet()) {
                codeLines += e.getValue();
                fenced += Math.min(e.getValue(), output.getOrDefault(e.getKey(), 0));
            }
            for (Map.Entry<String, Integer> e : output.entrySet()) {
                outputFenced += e.getValue();
                rightlyFenced += Math.min(e.getValue(), expected.getOrDefault(e.getKey(), 0));
            }
            System.out.printf(Locale.ROOT, "  %-30s precision %.3f recall %.3f%n", p.name(), p.precision(), p.recall());
        }
        double precision = RagEvalPages.mean(pages, RagEvalPages.Page::precision);
        double recall = RagEvalPages.mean(pages, RagEvalPages.Page::recall);
        System.out.printf(Locale.ROOT, "rag-eval code: %d pages, precision %.3f, recall %.3f; %d of %d listing lines fenced,"
                + " %d of %d fenced lines from listings%n", pages.size(), precision, recall, fenced, codeLines,
                rightlyFenced, outputFenced);
        for (RagEvalPages.Page p : pages) {
            assertThat(p.recall()).as("recall of " + p.name()).isGreaterThanOrEqualTo(0.80);
        }
        assertThat(recall).as("mean recall").isGreaterThanOrEqualTo(0.95);
        assertThat(precision).as("mean precision").isGreaterThanOrEqualTo(0.75);
        assertThat(fenced).as("listing lines fenced").isGreaterThanOrEqualTo((int) (0.85 * codeLines));
        assertThat(rightlyFenced).as("fenced lines that are listing lines").isGreaterThanOrEqualTo((int) (0.90 * outputFenced));
    }

    private static Map<String, Integer> counts(List<String> lines) {
        Map<String, Integer> out = new HashMap<>();
        for (String l : lines) {
            out.merge(l, 1, Integer::sum);
        }
        return out;
    }
}
