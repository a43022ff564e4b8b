package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.pipeline.output.OutputEvent.Content;
import io.rkllm.server.pipeline.output.OutputEvent.Reasoning;
import io.rkllm.server.pipeline.output.OutputEvent.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same text must give the same events however it is split into pieces: whole, at every split point,
 * at every pair of split points, one character per piece, and in random chunkings.
 */
class OutputScannerSplitTest {

    private static final long ID_SEED = 7;
    private static final ScannerOptions ALL = new ScannerOptions(List.of("<|im_end|>", "<|endoftext|>"), true, false, true);

    record Case(String name, String text, ScannerOptions options, List<OutputEvent> expected, String expectedStop) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> cases() {
        ToolCallIds ids = ToolCallIds.seeded(ID_SEED);
        String id0 = ids.next();
        String id1 = ids.next();
        return Stream.of(
                new Case("think, text, two tool calls, think in the middle, stop",
                        "<think>\n\nThe user wants 東京 weather 🌦️; maybe <b>bold</b> < 3.\n</think>\n\n"
                                + "Sure 👍 — checking <thin <tool now.\n"
                                + "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>\n"
                                + "<tool_call>\n{\"name\": \"get_time\", \"arguments\": \"{\\\"tz\\\": \\\"Europe/Paris\\\"}\"}\n</tool_call>\n\n"
                                + "Middle <think>second 思考</think> after <|im_e and <|im_end|> never <think>seen</think>",
                        ALL,
                        List.of(new Reasoning("The user wants 東京 weather 🌦️; maybe <b>bold</b> < 3.\n"),
                                new Content("Sure 👍 — checking <thin <tool now.\n"),
                                new ToolCall(0, id0, "get_weather", "{\"city\":\"Paris\",\"days\":2}"),
                                new ToolCall(1, id1, "get_time", "{\"tz\":\"Europe/Paris\"}"),
                                new Content("Middle "),
                                new Reasoning("second 思考"),
                                new Content("after <|im_e and ")),
                        "<|im_end|>"),
                new Case("malformed tool call is content, valid one after it",
                        "A<tool_call>{not json}</tool_call>B<tool_call>\n{\"name\":\"f\"}\n</tool_call>",
                        ALL,
                        List.of(new Content("A<tool_call>{not json}</tool_call>B"), new ToolCall(0, id0, "f", "{}")),
                        null),
                new Case("implicit think start, unicode around tags",
                        "  \nplan 🧠\n</think>\n\n答えは<think>\n😀more</think>42🎉<|endoftext|>junk",
                        new ScannerOptions(List.of("<|endoftext|>"), true, true, true),
                        List.of(new Reasoning("plan 🧠\n"), new Content("答えは"), new Reasoning("😀more"),
                                new Content("42🎉")),
                        "<|endoftext|>"),
                new Case("overlapping stop prefix",
                        "ababcab",
                        new ScannerOptions(List.of("abc"), false, false, false),
                        List.of(new Content("ab")),
                        "abc"),
                new Case("stop string made of a tag prefix, released when it does not match",
                        "x <tool_calx <tool_callz <think> y",
                        new ScannerOptions(List.of("<tool_callz"), true, false, true),
                        List.of(new Content("x <tool_calx ")),
                        "<tool_callz"),
                new Case("unclosed think at end, cut inside its closing marker",
                        "x<think>y 🤔</thi",
                        ALL,
                        List.of(new Content("x"), new Reasoning("y 🤔")),
                        null),
                new Case("unclosed tool call with complete JSON at end",
                        "ok <tool_call>{\"name\":\"f\",\"arguments\":{\"n\":1.10}}</tool_",
                        ALL,
                        List.of(new Content("ok "), new ToolCall(0, id0, "f", "{\"n\":1.10}")),
                        null),
                new Case("unclosed tool call with incomplete JSON at end",
                        "ok <tool_call>{\"name\":\"f\",\"argu",
                        ALL,
                        List.of(new Content("ok <tool_call>{\"name\":\"f\",\"argu")),
                        null),
                new Case("pending longer stop resolved at the end, shorter later stop matches",
                        "zabcd",
                        new ScannerOptions(List.of("abcdef", "cd"), false, false, false),
                        List.of(new Content("zab")),
                        "cd"),
                new Case("everything off: tags are content",
                        "<think>a</think><tool_call>{\"name\":\"f\"}</tool_call>",
                        ScannerOptions.passthrough(),
                        List.of(new Content("<think>a</think><tool_call>{\"name\":\"f\"}</tool_call>")),
                        null)
        ).map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void wholeText(Case c) {
        check(c, List.of(c.text()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everySplitPoint(Case c) {
        int n = c.text().codePointCount(0, c.text().length());
        for (int i = 1; i < n; i++) {
            check(c, ScanRun.splitAt(c.text(), i));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyPairOfSplitPoints(Case c) {
        int n = c.text().codePointCount(0, c.text().length());
        for (int i = 1; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                check(c, ScanRun.splitAt(c.text(), i, j));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void oneCharacterPerPiece(Case c) {
        check(c, c.text().codePoints().mapToObj(Character::toString).toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void randomChunkings(Case c) {
        Random random = new Random(20240601L);
        int n = c.text().codePointCount(0, c.text().length());
        for (int round = 0; round < 500; round++) {
            List<Integer> cuts = new ArrayList<>();
            int at = 0;
            while (true) {
                at += 1 + random.nextInt(random.nextBoolean() ? 4 : 16);
                if (at >= n) {
                    break;
                }
                cuts.add(at);
            }
            check(c, ScanRun.splitAt(c.text(), cuts.stream().mapToInt(Integer::intValue).toArray()));
        }
    }

    private static void check(Case c, List<String> pieces) {
        ScanRun run = ScanRun.of(c.options(), ID_SEED, pieces);
        assertThat(run.merged()).as("pieces %s", pieces).isEqualTo(c.expected());
        assertThat(run.scanner.matchedStop()).as("pieces %s", pieces).isEqualTo(c.expectedStop());
        assertThat(run.scanner.stopped()).isEqualTo(c.expectedStop() != null);
    }
}
