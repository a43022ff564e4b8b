package io.rkllm.rag;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Batch cleaning for evaluation: for every {@code inDir/<page>/source.txt} writes
 * {@code outDir/<page>.txt} with the text {@link WebTextCleaner} keeps. Score the output with
 * {@code python3 rag-eval/score.py rag-eval/dev OUT_DIR}.
 */
public final class RagCleanCommand {
    private final WebTextCleaner cleaner;

    public RagCleanCommand() {
        this(new WebTextCleaner());
    }

    public RagCleanCommand(WebTextCleaner cleaner) {
        this.cleaner = cleaner;
    }

    /** Cleans every page under {@code inDir}; returns the number of pages written. */
    public int run(Path inDir, Path outDir) throws IOException {
        Files.createDirectories(outDir);
        List<Path> pages;
        try (Stream<Path> s = Files.list(inDir)) {
            pages = s.filter(p -> Files.isRegularFile(p.resolve("source.txt"))).sorted().toList();
        }
        int n = 0;
        for (Path page : pages) {
            String source = Files.readString(page.resolve("source.txt"), StandardCharsets.UTF_8);
            String cleaned = cleaner.clean(source);
            Files.writeString(outDir.resolve(page.getFileName().toString() + ".txt"),
                    cleaned.isEmpty() ? cleaned : cleaned + "\n", StandardCharsets.UTF_8);
            n++;
        }
        return n;
    }

    /** {@code rag-clean --in DIR --out DIR} (also accepts the two directories as positional arguments). */
    public static void main(String[] args) {
        Path in = null;
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--in" -> in = i + 1 < args.length ? Path.of(args[++i]) : null;
                case "--out" -> out = i + 1 < args.length ? Path.of(args[++i]) : null;
                case "rag-clean" -> { }
                default -> {
                    if (in == null) {
                        in = Path.of(args[i]);
                    } else if (out == null) {
                        out = Path.of(args[i]);
                    }
                }
            }
        }
        if (in == null || out == null) {
            System.err.println("usage: rag-clean --in PAGES_DIR --out OUTPUT_DIR");
            System.exit(2);
        }
        try {
            int n = new RagCleanCommand().run(in, out);
            System.out.println("cleaned " + n + " pages into " + out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
