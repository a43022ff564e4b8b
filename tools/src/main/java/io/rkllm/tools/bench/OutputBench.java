package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.OfferedTools;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.OutputScanner;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.output.dialect.Dialect;
import io.rkllm.server.pipeline.output.dialect.Dialects;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.BiFunction;

/**
 * {@code bench output}: what reading a long streamed answer costs the server per token, in each dialect: a
 * 20,000-token answer (its reasoning, its text, a call in the middle, in the dialect's markers, with the stop strings
 * an OpenAI client sends) fed to the output scanner in token-sized pieces, as the engines deliver them. The time per
 * piece must not grow with the answer (the scanner is linear), and stays far below a token's decode time (tens of
 * milliseconds on the board).
 */
final class OutputBench {
    private static final int TOKENS = 20_000;
    private static final String TOOLS = "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}},"
            + "{\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"parameters\":{\"type\":\"object\","
            + "\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}}}}}]";
    private static final List<String> WORDS = List.of("the", "NPU", "runs", "three", "cores", "at", "a", "time",
            "and", "each", "token", "is", "written", "as", "it", "comes", "<", "b", ">", "x", "|", "[", "]", "{", "}",
            "\n", "\n\n", "code", "`", "*", "list", "item", "-", "42", "3.14", "東京", "🌸");

    private final PrintStream out;

    OutputBench(PrintStream out) {
        this.out = out;
    }

    /** The answer's text, in token-sized pieces, in a dialect's markers. */
    static List<String> answer(String dialect, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder thought = new StringBuilder();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < TOKENS / 2; i++) {
            (i < TOKENS / 10 ? thought : text).append(WORDS.get(random.nextInt(WORDS.size()))).append(' ');
        }
        String half = text.substring(0, text.length() / 2);
        String rest = text.substring(text.length() / 2);
        String whole = switch (dialect) {
            case "gpt-oss" -> "<|channel|>analysis<|message|>" + thought + "<|end|><|start|>assistant<|channel|>final"
                    + "<|message|>" + half + rest + "<|end|><|start|>assistant<|channel|>commentary"
                    + " to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}";
            case "qwen3-coder" -> "<think>\n" + thought + "</think>\n\n" + half + "\n<tool_call>\n<function=get_weather>\n"
                    + "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n" + rest;
            default -> "<think>\n" + thought + "</think>\n\n" + half + "\n<tool_call>\n{\"name\": \"get_weather\","
                    + " \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n" + rest;
        };
        return pieces(whole, random);
    }

    /**
     * An answer that is one call, its argument the 20,000 tokens (an agent writing a file through a tool): the call
     * streams as it is written, its block read again as it grows.
     */
    static List<String> callAnswer(String dialect, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < TOKENS / 2; i++) {
            text.append(WORDS.get(random.nextInt(WORDS.size()))).append(' ');
        }
        String json = "{\"path\": \"notes.md\", \"content\": " + CallJson.write(
                JsonNodeFactory.instance.textNode(text.toString())) + "}";
        String whole = switch (dialect) {
            case "gpt-oss" -> "<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>" + json
                    + "<|call|>";
            case "qwen3-coder" -> "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.md\n</parameter>\n"
                    + "<parameter=content>\n" + text + "\n</parameter>\n</function>\n</tool_call>";
            default -> "<tool_call>\n{\"name\": \"write_file\", \"arguments\": " + json + "}\n</tool_call>";
        };
        return pieces(whole, random);
    }

    private static List<String> pieces(String whole, SplittableRandom random) {
        List<String> pieces = new ArrayList<>();
        int[] cps = whole.codePoints().toArray();
        for (int i = 0; i < cps.length; ) {
            int n = Math.min(cps.length - i, 1 + random.nextInt(6)); // a token is 1 to 6 characters
            pieces.add(new String(cps, i, n));
            i += n;
        }
        return pieces;
    }

    /** Nanoseconds per piece of one scan of {@code pieces} (the whole answer: its call must be read). */
    static double scan(Dialect dialect, List<String> pieces) {
        return scan(dialect, pieces, true);
    }

    static double scan(Dialect dialect, List<String> pieces, boolean whole) {
        long start = System.nanoTime();
        OutputScanner scanner = new OutputScanner(options(dialect));
        int events = 0;
        for (String piece : pieces) {
            for (OutputEvent e : scanner.feed(piece)) {
                events += e instanceof OutputEvent.ToolCall ? 1000 : 1;
            }
        }
        events += scanner.finish().size();
        long ns = System.nanoTime() - start;
        if (whole && events < 1000) {
            throw new IllegalStateException(dialect.name() + ": the call was not read");
        }
        return (double) ns / pieces.size();
    }

    /** What an OpenAI client's request has the scanner look for: reasoning, the offered tools, its stop strings. */
    private static ScannerOptions options(Dialect dialect) {
        return new ScannerOptions(List.of("<|im_end|>", "\nUser:"), true, false, true, dialect.syntax(),
                OfferedTools.of(TOOLS));
    }

    /** Nanoseconds per piece of the last tenth of one scan of {@code pieces}. */
    static double lastTenth(Dialect dialect, List<String> pieces) {
        OutputScanner scanner = new OutputScanner(options(dialect));
        int from = pieces.size() - pieces.size() / 10;
        long start = 0;
        for (int i = 0; i < pieces.size(); i++) {
            if (i == from) {
                start = System.nanoTime();
            }
            scanner.feed(pieces.get(i));
        }
        scanner.finish();
        return (double) (System.nanoTime() - start) / (pieces.size() - from);
    }

    int run(int rounds) {
        out.println("bench output: a " + TOKENS + "-token answer (reasoning, text, a call) in token-sized pieces, "
                + rounds + " rounds after as many to warm up; median nanoseconds per piece, first and second half");
        out.println();
        table(rounds, OutputBench::answer, (dialect, pieces) -> {
            List<String> tail = pieces.subList(pieces.size() - pieces.size() / 10, pieces.size());
            return () -> scan(dialect, tail, false);
        });
        out.println();
        out.println("The answer one call, its argument the 20,000 tokens (streamed as it is written):");
        out.println();
        // the last tenth of a whole scan (the block is read only as a whole: it cannot start in its middle)
        table(rounds, OutputBench::callAnswer, (dialect, pieces) -> () -> lastTenth(dialect, pieces));
        return 0;
    }

    private interface Measure {
        double ns();
    }

    /** One table: each dialect's answer, its whole scan, its first tenth and its last tenth as {@code last} measures. */
    private void table(int rounds, BiFunction<String, Long, List<String>> answer,
                       BiFunction<Dialect, List<String>, Measure> last) {
        out.println("| dialect | pieces | ns per piece (whole answer) | ns per piece, first 10% | ns per piece, last 10% |");
        out.println("|---|---|---|---|---|");
        for (String name : List.of("hermes", "gpt-oss", "qwen3-coder")) {
            Dialect dialect = Dialects.named(name).orElseThrow();
            List<String> pieces = answer.apply(name, 7L);
            List<String> head = pieces.subList(0, pieces.size() / 10);
            for (int i = 0; i < rounds; i++) {
                scan(dialect, pieces);
            }
            double whole = median(rounds, () -> scan(dialect, pieces));
            double first = median(rounds, () -> scan(dialect, head, false));
            double tail = median(rounds, last.apply(dialect, pieces));
            out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.0f |%n", name, pieces.size(), whole, first, tail);
        }
    }

    private static double median(int rounds, Measure measure) {
        double[] values = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            values[i] = measure.ns();
        }
        java.util.Arrays.sort(values);
        return values[rounds / 2];
    }
}
