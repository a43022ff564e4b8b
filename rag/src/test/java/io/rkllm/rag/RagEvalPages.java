package io.rkllm.rag;

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

/**
 * A rag-eval split (pages of {@code source.txt} and {@code expected.txt}, see ../shared/rag-eval) and the
 * measure of rag-eval/score.py: word multisets, a CJK character being a word. Tests skip when the split
 * is absent.
 */
final class RagEvalPages {
    private RagEvalPages() {
    }

    private static final String CJK = "\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff";
    private static final Pattern TOKEN = Pattern.compile("[" + CJK + "]|[^\\W_" + CJK + "]+",
            Pattern.UNICODE_CHARACTER_CLASS);

    /** One page: its name, the expected text, the cleaner's output, and their word-level precision and recall. */
    record Page(String name, String expected, String output, double precision, double recall) {
    }

    /** The split's directory: the system property, the environment variable, or {@code <split>} beside the dev pages; null if none. */
    static Path find(String split, String property, String variable) {
        List<String> candidates = new ArrayList<>();
        String configured = System.getProperty(property, System.getenv(variable));
        if (configured != null) {
            candidates.add(configured);
        }
        for (String shared : List.of("../shared/rag-eval/", "../../shared/rag-eval/", "/work/shared/rag-eval/")) {
            candidates.add(shared + split);
        }
        for (String c : candidates) {
            Path p = Path.of(c);
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }

    /** Cleans every page of {@code dir} and scores it against its expected text. */
    static List<Page> clean(Path dir, WebTextCleaner cleaner) throws IOException {
        List<Path> pages;
        try (Stream<Path> s = Files.list(dir)) {
            pages = s.filter(p -> Files.isRegularFile(p.resolve("source.txt")) && Files.isRegularFile(p.resolve("expected.txt")))
                    .sorted().toList();
        }
        List<Page> out = new ArrayList<>();
        for (Path page : pages) {
            String source = Files.readString(page.resolve("source.txt"), StandardCharsets.UTF_8);
            String expected = Files.readString(page.resolve("expected.txt"), StandardCharsets.UTF_8);
            String output = cleaner.clean(source);
            Map<String, Integer> exp = tokens(expected);
            Map<String, Integer> got = tokens(output);
            int nExp = exp.values().stream().mapToInt(Integer::intValue).sum();
            int nOut = got.values().stream().mapToInt(Integer::intValue).sum();
            int common = 0;
            for (Map.Entry<String, Integer> e : got.entrySet()) {
                common += Math.min(e.getValue(), exp.getOrDefault(e.getKey(), 0));
            }
            out.add(new Page(page.getFileName().toString(), expected, output,
                    nOut == 0 ? 0 : common / (double) nOut, nExp == 0 ? 1 : common / (double) nExp));
        }
        return out;
    }

    static Map<String, Integer> tokens(String text) {
        Map<String, Integer> out = new HashMap<>();
        Matcher m = TOKEN.matcher(text.toLowerCase(Locale.ROOT));
        while (m.find()) {
            out.merge(m.group(), 1, Integer::sum);
        }
        return out;
    }

    /** The lines inside ``` fences ({@code code}) or outside them, each stripped and with its spaces collapsed. */
    static List<String> lines(String text, boolean code) {
        List<String> out = new ArrayList<>();
        boolean inside = false;
        for (String line : text.split("\n")) {
            String s = line.strip().replaceAll("\\s+", " ");
            if (s.startsWith("```")) {
                inside = !inside;
            } else if (!s.isEmpty() && inside == code) {
                out.add(s);
            }
        }
        return out;
    }

    static double mean(List<Page> pages, java.util.function.ToDoubleFunction<Page> f) {
        return pages.stream().mapToDouble(f).average().orElse(0);
    }
}
