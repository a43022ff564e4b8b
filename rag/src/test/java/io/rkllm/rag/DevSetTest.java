package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runs the cleaner over the rag-eval dev pages and checks the targets with the same measure as
 * rag-eval/score.py (word multisets; a CJK character is a word). Skipped when the pages are absent.
 */
class DevSetTest {
    private static final String CJK = "\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff";
    private static final Pattern TOKEN = Pattern.compile("[" + CJK + "]|[^\\W_" + CJK + "]+",
            Pattern.UNICODE_CHARACTER_CLASS);

    static Path devDir() {
        List<String> candidates = new ArrayList<>();
        String prop = System.getProperty("rag.eval.dir", System.getenv("RAG_EVAL_DIR"));
        if (prop != null) {
            candidates.add(prop);
        }
        candidates.addAll(List.of("../shared/rag-eval/dev", "../../shared/rag-eval/dev", "/work/shared/rag-eval/dev"));
        for (String c : candidates) {
            Path p = Path.of(c);
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }

    static Map<String, Integer> tokens(String text) {
        Map<String, Integer> out = new HashMap<>();
        Matcher m = TOKEN.matcher(text.toLowerCase(Locale.ROOT));
        while (m.find()) {
            out.merge(m.group(), 1, Integer::sum);
        }
        return out;
    }

    @Test
    void cleanerMeetsTheTargetsOnTheDevPages() throws IOException {
        Path dir = devDir();
        assumeTrue(dir != null, "rag-eval dev pages not found (set -Drag.eval.dir=...)");
        List<Path> pages;
        try (Stream<Path> s = Files.list(dir)) {
            pages = s.filter(p -> Files.isRegularFile(p.resolve("source.txt")) && Files.isRegularFile(p.resolve("expected.txt")))
                    .sorted().toList();
        }
        assumeTrue(!pages.isEmpty());
        WebTextCleaner cleaner = new WebTextCleaner();
        long start = System.nanoTime();
        double precision = 0;
        double recall = 0;
        double worstRecall = 1;
        String worst = "";
        for (Path page : pages) {
            String source = Files.readString(page.resolve("source.txt"), StandardCharsets.UTF_8);
            String expected = Files.readString(page.resolve("expected.txt"), StandardCharsets.UTF_8);
            Map<String, Integer> exp = tokens(expected);
            Map<String, Integer> out = tokens(cleaner.clean(source));
            int nExp = exp.values().stream().mapToInt(Integer::intValue).sum();
            int nOut = out.values().stream().mapToInt(Integer::intValue).sum();
            int common = 0;
            for (Map.Entry<String, Integer> e : out.entrySet()) {
                common += Math.min(e.getValue(), exp.getOrDefault(e.getKey(), 0));
            }
            double r = nExp == 0 ? 1 : common / (double) nExp;
            double p = nOut == 0 ? 0 : common / (double) nOut;
            precision += p;
            recall += r;
            if (r < worstRecall) {
                worstRecall = r;
                worst = page.getFileName().toString();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        precision /= pages.size();
        recall /= pages.size();
        System.out.printf(Locale.ROOT, "rag-eval dev: %d pages, precision %.3f, recall %.3f, worst recall %.3f (%s), %.2f s%n",
                pages.size(), precision, recall, worstRecall, worst, seconds);
        assertThat(precision).as("mean precision").isGreaterThanOrEqualTo(0.88);
        assertThat(recall).as("mean recall").isGreaterThanOrEqualTo(0.95);
        assertThat(worstRecall).as("worst page recall (" + worst + ")").isGreaterThanOrEqualTo(0.80);
    }
}
