package io.rkllm.rag;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Measures passage selection on the rag-eval pages (a development tool, not a test): for facts taken
 * from each page's article, a keyword question is asked with that page and two other pages as web
 * results; a hit is a prompt whose reference text contains the fact sentence. Also reports the share
 * of reference text taken from the two unrelated pages ("noise").
 *
 * <p>Run: {@code java -cp rag/target/classes:rag/target/test-classes io.rkllm.rag.SelectionBench ../shared/rag-eval/dev}
 * ({@code -Dbench.code=true ../shared/rag-eval/code}: questions about the listings of the technical pages)
 */
public final class SelectionBench {

    /** Words per question (2 makes the task hard: many passages of the right page match one of them). */
    static final int WORDS = Integer.getInteger("bench.words", 2);

    /** Ask with three pages none of which holds the fact (how often "nothing relevant" is said, as it should). */
    static final boolean UNRELATED = Boolean.getBoolean("bench.unrelated");

    /** Ask about the sentence after the fact instead of the fact itself. */
    static final boolean NEAR = Boolean.getBoolean("bench.near");

    /**
     * Code mode (for the rag-eval code pages): ask with words of the sentence that introduces a listing;
     * a hit is a prompt with the listing's first lines inside a ``` fence.
     */
    static final boolean CODE = Boolean.getBoolean("bench.code");

    record Case(String page, String fact, String question) {
    }

    record Figures(double hitRate, double noise, double meanTokens, double nothingRelevant, int cases) {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "../shared/rag-eval/dev");
        List<String> pages = pages(dir);
        List<Case> cases = cases(dir, pages);
        System.out.printf(Locale.ROOT, "%d cases from %d pages%n", cases.size(), pages.size());
        List<RagOptions> variants = new ArrayList<>();
        RagOptions d = RagOptions.defaults();
        variants.add(d);
        if (Boolean.getBoolean("bench.table")) { // the variants of the table in docs/rag.md
            variants.add(d.withNeighbourRings(0));
            variants.add(d.withNeighbourRings(1));
            variants.add(d.withRelativeRelevance(0));
            variants.add(d.withRelativeRelevance(0.35));
            variants.add(d.withMaxPassageChars(700));
            variants.add(d.withMaxPassageChars(500).withMinPassageChars(150));
        }
        if (Boolean.getBoolean("bench.relevance")) {
            variants.clear();
            for (double mr : new double[] {0.1, 0.2, 0.3, 0.4}) {
                variants.add(d.withMinRelevance(mr));
            }
        }
        if (Boolean.getBoolean("bench.sweep")) {
            variants.clear();
            for (double rr : new double[] {0.35, 0.5}) {
                for (int rings : new int[] {1, 2}) {
                    for (int max : new int[] {700, 1000}) {
                        variants.add(d.withRelativeRelevance(rr).withNeighbourRings(rings).withMaxPassageChars(max));
                    }
                }
            }
        }
        for (RagOptions o : variants) {
            System.out.printf(Locale.ROOT, "rel.share %.2f weight %.2f passage %d..%d max %d rings %d min.relevance %.2f%n",
                    o.relativeRelevance(), o.relevanceWeight(), o.minPassageChars(), o.maxPassageChars(), o.maxPassages(),
                    o.neighbourRings(), o.minRelevance());
            for (String c : System.getProperty("bench.ctx", "2048,4096,8192").split(",")) {
                int ctx = Integer.parseInt(c.strip());
                Figures f = run(dir, pages, cases, ctx, o);
                System.out.printf(Locale.ROOT, "  ctx %5d: hit %.3f  noise %.3f  reference tokens %.0f  nothing-relevant %.3f%n",
                        ctx, f.hitRate(), f.noise(), f.meanTokens(), f.nothingRelevant());
            }
        }
    }

    static List<String> pages(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("expected.txt"))).map(p -> p.getFileName().toString())
                    .sorted().toList();
        }
    }

    /** Up to three fact sentences per page with 12-40 words, evenly spread over the article. */
    static List<Case> cases(Path dir, List<String> pages) throws IOException {
        if (CODE) {
            return codeCases(dir, pages);
        }
        List<Case> out = new ArrayList<>();
        for (String page : pages) {
            String expected = Files.readString(dir.resolve(page).resolve("expected.txt"), StandardCharsets.UTF_8);
            if (expected.length() < 2000 || Scripts.countCjk(expected) * 4 > expected.length()) {
                continue;
            }
            List<String> sentences = new ArrayList<>();
            for (String para : expected.split("\n\\s*\n")) {
                for (String s : para.replace('\n', ' ').split("(?<=[.!?])\\s+")) {
                    int words = s.split("\\s+").length;
                    if (words >= 12 && words <= 40 && !s.contains("http")) {
                        sentences.add(s.strip());
                    }
                }
            }
            if (sentences.size() < 3) {
                continue;
            }
            for (int k = 0; k < 3; k++) {
                int at = (int) ((k + 0.5) * sentences.size() / 3);
                String fact = sentences.get(at);
                // "near" mode: the question is about the fact's neighbouring sentence, as when an answer
                // sits next to the words the user typed
                String asked = NEAR && at + 1 < sentences.size() ? sentences.get(at + 1) : fact;
                out.add(new Case(page, fact, question(asked)));
            }
        }
        return out;
    }

    /** Up to three listings per page (of two lines or more, introduced by a sentence of six words or more), evenly spread. */
    static List<Case> codeCases(Path dir, List<String> pages) throws IOException {
        List<Case> out = new ArrayList<>();
        for (String page : pages) {
            String[] lines = Files.readString(dir.resolve(page).resolve("expected.txt"), StandardCharsets.UTF_8).split("\n");
            List<Case> found = new ArrayList<>();
            for (int i = 0; i < lines.length; i++) {
                if (!lines[i].startsWith("```")) {
                    continue;
                }
                int end = i + 1;
                while (end < lines.length && !lines[end].startsWith("```")) {
                    end++;
                }
                String intro = "";
                for (int k = i - 1; k >= 0 && intro.isEmpty(); k--) {
                    intro = lines[k].startsWith("```") ? "-" : lines[k].strip();
                }
                List<String> code = new ArrayList<>();
                for (int k = i + 1; k < end; k++) {
                    if (!lines[k].isBlank()) {
                        code.add(lines[k].strip());
                    }
                }
                if (code.size() >= 2 && intro.split("\\s+").length >= 6 && Scripts.countCjk(intro) == 0) {
                    found.add(new Case(page, String.join("\n", code.subList(0, Math.min(3, code.size()))), question(intro)));
                }
                i = end;
            }
            for (int k = 0; k < Math.min(3, found.size()); k++) {
                out.add(found.get((int) ((k + 0.5) * found.size() / Math.min(3, found.size()))));
            }
        }
        return out;
    }

    /** In code mode, whether the listing's lines must be inside a fence (false: anywhere in the passage). */
    static final boolean FENCES = Boolean.parseBoolean(System.getProperty("bench.code.fences", "true"));

    /** Every line of {@code code} is a line inside a ``` fence of the passage (or anywhere in it, FENCES off). */
    static boolean fenced(String passage, String code) {
        List<String> inside = new ArrayList<>();
        boolean open = false;
        for (String line : passage.split("\n")) {
            if (line.strip().startsWith("```")) {
                open = !open;
            } else if (open || !FENCES) {
                inside.add(line.strip());
            }
        }
        return inside.containsAll(List.of(code.split("\n")));
    }

    /**
     * A terse keyword question: three of the fact's content words (its 2nd to 4th longest, so that the
     * single rarest word does not give the answer away), as people type into a search box.
     */
    static String question(String fact) {
        List<String> words = new ArrayList<>();
        for (String w : fact.split("[^\\p{L}\\p{N}'-]+")) {
            String lw = w.toLowerCase(Locale.ROOT);
            if (w.length() > 2 && !FunctionWords.isFunctionWord(lw) && !words.contains(w)) {
                words.add(w);
            }
        }
        List<String> byLength = new ArrayList<>(words);
        byLength.sort((a, b) -> b.length() - a.length());
        List<String> keep = byLength.subList(Math.min(1, byLength.size()), Math.min(1 + WORDS, byLength.size()));
        StringBuilder q = new StringBuilder("What about");
        for (String w : words) {
            if (keep.contains(w)) {
                q.append(' ').append(w);
            }
        }
        return q.append('?').toString();
    }

    static Figures run(Path dir, List<String> pages, List<Case> cases, int ctx, RagOptions options) throws IOException {
        RagPromptBuilder builder = new RagPromptBuilder();
        int hits = 0;
        double noise = 0;
        double tokens = 0;
        int nothing = 0;
        int n = 0;
        for (Case c : cases) {
            int i = pages.indexOf(c.page());
            List<String> chosen = List.of(UNRELATED ? pages.get((i + 31) % pages.size()) : c.page(),
                    pages.get((i + 7) % pages.size()), pages.get((i + 19) % pages.size()));
            int rotate = n % 3;
            StringBuilder ctxText = new StringBuilder();
            for (int k = 0; k < 3; k++) {
                String p = chosen.get((k + rotate) % 3);
                String text = Files.readString(dir.resolve(p).resolve("source.txt"), StandardCharsets.UTF_8);
                ctxText.append("<source id=\"").append(k + 1).append("\" name=\"https://example.com/").append(p)
                        .append("\">").append(text).append("</source>\n");
            }
            String user = "### Task:\nRespond to the user query using the provided context.\n\n<context>\n" + ctxText
                    + "</context>\n\n<user_query>\n" + c.question() + "\n</user_query>";
            RagInput in = new RagInput(List.of(RagMessage.user(user)), null, ctx, 512, 0, t -> (t.length() + 3) / 4,
                    LocalDate.of(2025, 1, 1), options);
            RagResult r = builder.build(in);
            String target = "https://example.com/" + c.page();
            int all = 0;
            int other = 0;
            boolean hit = false;
            for (KeptSource s : r.sources()) {
                for (String p : s.passages()) {
                    all += p.length();
                    if (!s.name().equals(target)) {
                        other += p.length();
                    } else if (CODE ? fenced(p, c.fact()) : contains(p, c.fact())) {
                        hit = true;
                    }
                }
            }
            hits += hit ? 1 : 0;
            nothing += r.nothingRelevant() ? 1 : 0;
            noise += all == 0 ? 0 : other / (double) all;
            tokens += r.stats().usedTokens();
            n++;
        }
        return new Figures(hits / (double) n, noise / n, tokens / n, nothing / (double) n, n);
    }

    /** At least 80% of the fact's words (as a multiset) are in the passage. */
    static boolean contains(String passage, String fact) {
        List<String> f = words(fact);
        List<String> p = new ArrayList<>(words(passage));
        int found = 0;
        for (String w : f) {
            if (p.remove(w)) {
                found++;
            }
        }
        return !f.isEmpty() && found >= 0.8 * f.size();
    }

    private static List<String> words(String s) {
        List<String> out = new ArrayList<>();
        for (String w : s.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (!w.isEmpty()) {
                out.add(w);
            }
        }
        return out;
    }
}
