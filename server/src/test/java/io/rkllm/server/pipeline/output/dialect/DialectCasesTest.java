package io.rkllm.server.pipeline.output.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.rkllm.server.pipeline.output.OfferedTools;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.OutputScanner;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.output.ToolCallIds;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What models of each family really write, and what a client must get of it: the cases in
 * {@code resources/dialects/<family>.json} (taken from llama.cpp's chat tests and the families' templates, see the
 * README there), each scanned whole, one character at a time and in random pieces of 1 to 3 characters, in the
 * dialect the server chooses for the family's template.
 */
class DialectCasesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The most pieces one call of each family came in before it was whole. */
    private static final Map<String, Integer> PIECES = new TreeMap<>();
    /** The fixture files: the family each describes, and the dialect the server reads it in. */
    static final Map<String, String> FAMILIES = Map.ofEntries(
            Map.entry("gpt-oss", "gpt-oss"), Map.entry("llama3", "llama3"), Map.entry("mistral-nemo", "mistral-nemo"),
            Map.entry("mistral-small", "mistral"), Map.entry("ministral", "mistral"),
            Map.entry("qwen3-coder", "qwen3-coder"), Map.entry("qwen3.5", "qwen3-coder"),
            Map.entry("hermes", "hermes"), Map.entry("smollm3", "hermes"), Map.entry("deepseek-r1", "deepseek"),
            Map.entry("deepseek-v3.1", "deepseek"), Map.entry("deepseek-v3.2", "deepseek-v3.2"),
            Map.entry("glm", "glm"), Map.entry("gemma4", "gemma4"), Map.entry("granite", "granite"),
            Map.entry("nemotron-v2", "nemotron-v2"), Map.entry("nemotron-v3", "qwen3-coder"),
            Map.entry("lfm2", "lfm2"), Map.entry("minimax-m2", "minimax-m2"), Map.entry("kimi-k2", "kimi-k2"),
            Map.entry("seed-oss", "seed-oss"), Map.entry("command-r7b", "command-r7b"));

    record Case(String family, String name, String output, boolean startsInReasoning, OfferedTools tools,
                JsonNode expect) {
        @Override
        public String toString() {
            return family + ": " + name;
        }
    }

    static Stream<Arguments> cases() throws IOException {
        List<Arguments> all = new ArrayList<>();
        for (String family : FAMILIES.keySet().stream().sorted().toList()) {
            JsonNode file;
            try (InputStream in = DialectCasesTest.class.getResourceAsStream("/dialects/" + family + ".json")) {
                if (in == null) {
                    continue;
                }
                file = JSON.readTree(in);
            }
            for (JsonNode c : file.path("cases")) {
                if (c.path("partial").asBoolean(false)) {
                    continue; // a parse in mid-stream: the server reports calls once they are whole
                }
                OfferedTools tools = c.has("tools") ? OfferedTools.of(openAiTools(c.get("tools"))) : OfferedTools.ANY;
                all.add(Arguments.of(new Case(family, c.path("name").asText(), c.path("output").asText(),
                        c.path("startsInReasoning").asBoolean(false), tools, c.path("expect"))));
            }
        }
        return all.stream();
    }

    private static String openAiTools(JsonNode tools) {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        for (JsonNode t : tools) {
            array.addObject().put("type", "function").set("function", t);
        }
        return array.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void wholeAndInPieces(Case c) throws IOException {
        Dialect dialect = Dialects.named(FAMILIES.get(c.family())).orElseThrow();
        ScannerOptions options = new ScannerOptions(List.of(), true, c.startsInReasoning(), true, dialect.syntax(),
                c.tools());
        List<String> whole = List.of(c.output());
        expectFrom(options, whole, c);
        List<String> chars = c.output().codePoints().mapToObj(Character::toString).toList();
        expectFrom(options, chars, c);
        SplittableRandom random = new SplittableRandom(c.output().hashCode());
        for (int round = 0; round < 3; round++) {
            expectFrom(options, pieces(c.output(), random), c);
        }
    }

    private void expectFrom(ScannerOptions options, List<String> pieces, Case c) throws IOException {
        OutputScanner scanner = new OutputScanner(options, ToolCallIds.seeded(1));
        StringBuilder content = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        List<OutputEvent.ToolCall> calls = new ArrayList<>();
        List<OutputEvent> events = new ArrayList<>();
        for (String piece : pieces) {
            events.addAll(scanner.feed(piece));
        }
        events.addAll(scanner.finish());
        String how = c + ", " + (pieces.size() == 1 ? "whole" : "in " + pieces.size() + " pieces");
        Map<Integer, OutputEvent.CallDelta> begun = new HashMap<>();
        Map<Integer, StringBuilder> streamed = new HashMap<>();
        Map<Integer, Integer> deltas = new HashMap<>();
        for (OutputEvent e : events) {
            switch (e) {
                case OutputEvent.Content t -> content.append(t.text());
                case OutputEvent.Reasoning t -> reasoning.append(t.text());
                case OutputEvent.ToolCall t -> {
                    calls.add(t);
                    OutputEvent.CallDelta first = begun.remove(t.index());
                    if (first != null) {
                        // a client that streams adds the pieces up, then what is left: the call's arguments
                        assertThat(t.argumentsJson()).as("streamed arguments, " + how)
                                .startsWith(streamed.get(t.index()).toString());
                        assertThat(List.of(t.id(), t.name())).as("streamed call, " + how)
                                .isEqualTo(List.of(first.id(), first.name()));
                    }
                    if (hasText(t.argumentsJson())) {
                        PIECES.merge(c.family(), deltas.getOrDefault(t.index(), 0), Math::max);
                    }
                }
                case OutputEvent.CallDelta d -> {
                    OutputEvent.CallDelta first = begun.putIfAbsent(d.index(), d);
                    assertThat(first == null || first.id().equals(d.id()) && first.name().equals(d.name()))
                            .as("one call's pieces, " + how).isTrue();
                    streamed.computeIfAbsent(d.index(), i -> new StringBuilder()).append(d.arguments());
                    deltas.merge(d.index(), 1, Integer::sum);
                }
            }
        }
        assertThat(begun).as("streamed calls that never ended, " + how).isEmpty();
        JsonNode expect = c.expect();
        assertThat(reasoning.toString().strip()).as("reasoning, " + how)
                .isEqualTo(expect.path("reasoning").asText("").strip());
        assertThat(content.toString().strip()).as("content, " + how)
                .isEqualTo(expect.path("content").asText("").strip());
        List<String> expectedCalls = new ArrayList<>();
        for (JsonNode call : expect.path("toolCalls")) {
            JsonNode args = call.path("arguments");
            expectedCalls.add(call.path("name").asText() + " " + JSON.readTree(args.isTextual() ? args.asText()
                    : args.toString()) + (call.has("id") ? " id=" + call.get("id").asText() : ""));
        }
        List<String> actualCalls = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            OutputEvent.ToolCall call = calls.get(i);
            JsonNode expected = expect.path("toolCalls").path(i);
            // the id the model wrote, where the case says which (Kimi's, Command R's): the client gets that one
            actualCalls.add(call.name() + " " + JSON.readTree(call.argumentsJson())
                    + (expected.has("id") ? " id=" + call.id() : ""));
        }
        assertThat(actualCalls).as("tool calls, " + how).isEqualTo(expectedCalls);
    }

    /** The arguments have a text value of four characters or more: one that streams as it is written. */
    private static boolean hasText(String argumentsJson) {
        try {
            JsonNode args = JSON.readTree(argumentsJson);
            for (JsonNode v : args) {
                if (v.isTextual() && v.asText().length() >= 4) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Every family's calls stream: in some case its call's arguments come in several pieces before the call is
     * whole, as llama-server sends them (the pieces add up, checked with each case).
     */
    @AfterAll
    static void everyFamilyStreamsItsCalls() {
        assertThat(PIECES.keySet()).as("families with a case whose call has a text argument")
                .containsAll(FAMILIES.keySet().stream().filter(f -> !f.equals("smollm3")).toList()); // its calls have none
        Map<String, Integer> few = new TreeMap<>(PIECES);
        few.values().removeIf(n -> n >= 3);
        assertThat(few).as("families whose calls came in fewer than 3 pieces").isEmpty();
    }

    /** The text in random pieces of 1 to 3 characters (code points). */
    private static List<String> pieces(String text, SplittableRandom random) {
        List<String> pieces = new ArrayList<>();
        int[] cps = text.codePoints().toArray();
        int i = 0;
        while (i < cps.length) {
            int n = Math.min(cps.length - i, 1 + random.nextInt(3));
            pieces.add(new String(cps, i, n));
            i += n;
        }
        return pieces;
    }
}
