package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.pipeline.output.OutputEvent.Content;
import io.rkllm.server.pipeline.output.OutputEvent.Reasoning;
import io.rkllm.server.pipeline.output.OutputEvent.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutputScannerTest {

    private static final ScannerOptions PARSE_ALL = new ScannerOptions(List.of(), true, false, true);

    private static ScannerOptions stops(String... stops) {
        return new ScannerOptions(List.of(stops), false, false, false);
    }

    private static OutputScanner scanner(ScannerOptions options) {
        return new OutputScanner(options, ToolCallIds.seeded(1));
    }

    private static List<OutputEvent> feedAll(OutputScanner scanner, String... pieces) {
        List<OutputEvent> events = new java.util.ArrayList<>();
        for (String piece : pieces) {
            events.addAll(scanner.feed(piece));
        }
        events.addAll(scanner.finish());
        return ScanRun.merge(events);
    }

    // ---- Passthrough ----

    @Test
    void withNothingToLookForEveryPieceIsEmittedAtOnce() {
        OutputScanner scanner = scanner(ScannerOptions.passthrough());
        assertThat(scanner.feed("<thi")).containsExactly(new Content("<thi"));
        assertThat(scanner.feed("nk>")).containsExactly(new Content("nk>"));
        assertThat(scanner.feed("<|im_end|>")).containsExactly(new Content("<|im_end|>"));
        assertThat(scanner.heldBack()).isZero();
        assertThat(scanner.finish()).isEmpty();
        assertThat(scanner.stopped()).isFalse();
    }

    @Test
    void withParsingOnOnlyAPossibleTagStartIsHeld() {
        OutputScanner scanner = scanner(PARSE_ALL);
        assertThat(scanner.feed("Hello")).containsExactly(new Content("Hello"));
        assertThat(scanner.feed(" <")).containsExactly(new Content(" "));
        assertThat(scanner.heldBack()).isEqualTo(1);
        assertThat(scanner.feed("b>bold")).containsExactly(new Content("<b>bold"));
        assertThat(scanner.feed(" <tool")).containsExactly(new Content(" "));
        assertThat(scanner.feed("box")).containsExactly(new Content("<toolbox"));
        assertThat(scanner.feed(" a<b")).containsExactly(new Content(" a<b"));
        assertThat(scanner.feed("<")).isEmpty();
        assertThat(scanner.finish()).containsExactly(new Content("<"));
    }

    @Test
    void emptyPieceGivesNothing() {
        assertThat(scanner(PARSE_ALL).feed("")).isEmpty();
    }

    // ---- StopStrings ----

    @Test
    void atTheVeryStart() {
        OutputScanner scanner = scanner(stops("STOP"));
        assertThat(scanner.feed("STOP and more")).isEmpty();
        assertThat(scanner.stopped()).isTrue();
        assertThat(scanner.matchedStop()).isEqualTo("STOP");
        assertThat(scanner.feed("more")).isEmpty();
        assertThat(scanner.finish()).isEmpty();
    }

    @Test
    void splitAcrossPieces() {
        OutputScanner scanner = scanner(stops("<|im_end|>"));
        assertThat(scanner.feed("Hel")).containsExactly(new Content("Hel"));
        assertThat(scanner.feed("lo <|im")).containsExactly(new Content("lo "));
        assertThat(scanner.feed("_en")).isEmpty();
        assertThat(scanner.stopped()).isFalse();
        assertThat(scanner.feed("d|> tail")).isEmpty();
        assertThat(scanner.stopped()).isTrue();
        assertThat(scanner.matchedStop()).isEqualTo("<|im_end|>");
        assertThat(scanner.feed("after")).isEmpty();
        assertThat(scanner.finish()).isEmpty();
    }

    @Test
    void overlappingPrefixes() {
        OutputScanner scanner = scanner(stops("abc"));
        assertThat(scanner.feed("a")).isEmpty();
        assertThat(scanner.feed("b")).isEmpty();
        assertThat(scanner.feed("a")).containsExactly(new Content("ab"));
        assertThat(scanner.feed("b")).isEmpty();
        assertThat(scanner.feed("c")).isEmpty();
        assertThat(scanner.stopped()).isTrue();
    }

    @Test
    void earliestMatchWinsAmongSeveral() {
        assertThat(feedAll(scanner(stops("world", "lo w")), "hello world")).containsExactly(new Content("hel"));
        OutputScanner charByChar = scanner(stops("world", "lo w"));
        assertThat(feedAll(charByChar, "h", "e", "l", "l", "o", " ", "w", "o")).containsExactly(new Content("hel"));
        assertThat(charByChar.matchedStop()).isEqualTo("lo w");
    }

    @Test
    void atTheSamePositionTheShortestWinsHoweverSplit() {
        OutputScanner whole = scanner(stops("abcd", "ab"));
        assertThat(feedAll(whole, "xabcd")).containsExactly(new Content("x"));
        assertThat(whole.matchedStop()).isEqualTo("ab");
        OutputScanner split = scanner(stops("abcd", "ab"));
        assertThat(feedAll(split, "xa", "b", "cd")).containsExactly(new Content("x"));
        assertThat(split.matchedStop()).isEqualTo("ab");
    }

    @Test
    void anEarlierPendingStopDelaysALaterMatchUntilResolved() {
        OutputScanner scanner = scanner(stops("abcdef", "cd"));
        assertThat(scanner.feed("ab")).isEmpty();
        assertThat(scanner.feed("cd")).isEmpty(); // "abcdef" might still match at 0
        assertThat(scanner.stopped()).isFalse();
        assertThat(scanner.feed("X")).containsExactly(new Content("ab"));
        assertThat(scanner.matchedStop()).isEqualTo("cd");
    }

    @Test
    void aPrefixThatCannotMatchIsReleasedAtOnce() {
        OutputScanner scanner = scanner(stops("<|im_end|>"));
        assertThat(scanner.feed("a <|im")).containsExactly(new Content("a "));
        assertThat(scanner.feed("_start")).containsExactly(new Content("<|im_start"));
        assertThat(scanner.heldBack()).isZero();
    }

    @Test
    void aHeldPrefixBecomesContentAtTheEnd() {
        OutputScanner scanner = scanner(stops("<|im_end|>"));
        assertThat(scanner.feed("x <|im_en")).containsExactly(new Content("x "));
        assertThat(scanner.finish()).containsExactly(new Content("<|im_en"));
        assertThat(scanner.stopped()).isFalse();
        assertThat(scanner.matchedStop()).isNull();
    }

    @Test
    void doNotApplyInsideThinkOrToolCallBlocks() {
        OutputScanner scanner = new OutputScanner(new ScannerOptions(List.of("END"), true, false, true),
                ToolCallIds.seeded(3));
        String id = ToolCallIds.seeded(3).next();
        assertThat(feedAll(scanner,
                "<think>the END is near</think>ok<tool_call>{\"name\":\"f\",\"arguments\":{\"q\":\"END\"}}</tool_call>done END x"))
                .containsExactly(new Reasoning("the END is near"), new Content("ok"),
                        new ToolCall(0, id, "f", "{\"q\":\"END\"}"), new Content("done "));
        assertThat(scanner.matchedStop()).isEqualTo("END");
    }

    @Test
    void aStopStringBeatsATagAtTheSamePosition() {
        ScannerOptions options = new ScannerOptions(List.of("<think>!"), true, false, false);
        OutputScanner stopped = scanner(options);
        assertThat(feedAll(stopped, "a<think>!b</think>")).containsExactly(new Content("a"));
        assertThat(stopped.stopped()).isTrue();
        assertThat(feedAll(scanner(options), "a<think>?b</think>c"))
                .containsExactly(new Content("a"), new Reasoning("?b"), new Content("c"));
    }

    @Test
    void emptyAndDuplicateStopStringsAreIgnored() {
        ScannerOptions options = new ScannerOptions(java.util.Arrays.asList("", null, "x", "x"), false, false, false);
        assertThat(options.stopStrings()).containsExactly("x");
        assertThat(feedAll(scanner(options), "abxc")).containsExactly(new Content("ab"));
    }

    @Test
    void heldBackTextStaysShorterThanTheLongestPattern() {
        OutputScanner scanner = scanner(new ScannerOptions(List.of("<|im_end|>", "###"), true, false, true));
        String junk = "<|im_en##<|<thin<tool_cal#<|im_en";
        for (int i = 0; i < 20_000; i++) {
            scanner.feed(String.valueOf(junk.charAt(i % junk.length())));
            assertThat(scanner.heldBack()).isLessThan("<tool_call>".length());
        }
        assertThat(scanner.stopped()).isFalse();
    }

    // ---- Think ----

    @Test
    void reasoningThenContentWithWhitespaceAfterTagsTrimmed() {
        OutputScanner scanner = scanner(PARSE_ALL);
        assertThat(scanner.feed("<think>")).isEmpty();
        assertThat(scanner.feed("\n")).isEmpty();
        assertThat(scanner.feed("\nHmm.")).containsExactly(new Reasoning("Hmm."));
        assertThat(scanner.feed("\n</think>\n")).containsExactly(new Reasoning("\n"));
        assertThat(scanner.feed("\n")).isEmpty();
        assertThat(scanner.feed("Answer")).containsExactly(new Content("Answer"));
        assertThat(scanner.finish()).isEmpty();
    }

    @Test
    void implicitStartInsideThink() {
        OutputScanner scanner = scanner(new ScannerOptions(List.of(), true, true, false));
        assertThat(scanner.feed("\nLet me think.\n")).containsExactly(new Reasoning("Let me think.\n"));
        assertThat(scanner.feed("</think>\n\nAnswer.")).containsExactly(new Content("Answer."));
    }

    @Test
    void startInsideThinkIsIgnoredWhenThinkParsingIsOff() {
        assertThat(feedAll(scanner(new ScannerOptions(List.of(), false, true, false)), "a</think>b"))
                .containsExactly(new Content("a</think>b"));
    }

    @Test
    void thinkBlockInTheMiddleAndTextAfterIt() {
        assertThat(feedAll(scanner(PARSE_ALL), "First. <think>\nhmm\n</think>\n\n Then more."))
                .containsExactly(new Content("First. "), new Reasoning("hmm\n"), new Content("Then more."));
    }

    @Test
    void unclosedThinkIsReasoningAtTheEndWithoutTheMarkerItWasCutIn() {
        OutputScanner scanner = scanner(PARSE_ALL);
        assertThat(scanner.feed("<think>still thinking </thi")).containsExactly(new Reasoning("still thinking "));
        // the token limit fell inside the closing marker: markup, not reasoning
        assertThat(scanner.finish()).isEmpty();
        // a lone "<" may be text ("x <"): it stays
        OutputScanner lone = scanner(PARSE_ALL);
        assertThat(lone.feed("<think>is x <")).containsExactly(new Reasoning("is x "));
        assertThat(lone.finish()).containsExactly(new Reasoning("<"));
    }

    @Test
    void aStrayCloseTagInContentIsContent() {
        assertThat(feedAll(scanner(PARSE_ALL), "a</think>b")).containsExactly(new Content("a</think>b"));
    }

    @Test
    void eventsOfOneFeedAreMergedPerKind() {
        OutputScanner scanner = scanner(PARSE_ALL);
        assertThat(scanner.feed("a<think>b</think>c<think>d")).containsExactly(
                new Content("a"), new Reasoning("b"), new Content("c"), new Reasoning("d"));
        assertThat(scanner.feed("e")).containsExactly(new Reasoning("e"));
    }

    @Test
    void unicodeAroundTagsOneCodePointAtATime() {
        String text = "日本<think>🤔思考</think>😀答え🇫🇷";
        OutputScanner scanner = scanner(PARSE_ALL);
        List<String> pieces = text.codePoints().mapToObj(Character::toString).toList();
        assertThat(feedAll(scanner, pieces.toArray(String[]::new)))
                .containsExactly(new Content("日本"), new Reasoning("🤔思考"), new Content("😀答え🇫🇷"));
    }

    // ---- ToolCalls ----

    @Test
    void twoToolCallsInARowWithTextBefore() {
        ToolCallIds expectedIds = ToolCallIds.seeded(1);
        OutputScanner scanner = scanner(PARSE_ALL);
        List<OutputEvent> events = feedAll(scanner, "Let me check.\n<tool_call>\n",
                "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n",
                "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Tokyo\", \"unit\": \"c\"}}\n</tool_call>");
        assertThat(events).containsExactly(
                new Content("Let me check.\n"),
                new ToolCall(0, expectedIds.next(), "get_weather", "{\"city\":\"Paris\"}"),
                new ToolCall(1, expectedIds.next(), "get_weather", "{\"city\":\"Tokyo\",\"unit\":\"c\"}"));
        assertThat(scanner.toolCallCount()).isEqualTo(2);
    }

    @Test
    void aToolCallIsEmittedWhenItsCloseTagArrives() {
        OutputScanner scanner = scanner(PARSE_ALL);
        assertThat(scanner.feed("<tool_call>{\"name\":\"f\",")).isEmpty();
        assertThat(scanner.feed("\"arguments\":{}}</tool_")).isEmpty();
        assertThat(scanner.feed("call>")).singleElement().isInstanceOf(ToolCall.class);
    }

    @Test
    void generatedIdsLookLikeOpenAiIds() {
        OutputScanner scanner = new OutputScanner(PARSE_ALL);
        List<OutputEvent> events = scanner.feed(
                "<tool_call>{\"name\":\"a\"}</tool_call><tool_call>{\"name\":\"b\"}</tool_call>");
        assertThat(events).hasSize(2).allSatisfy(e ->
                assertThat(((ToolCall) e).id()).matches("call_[A-Za-z0-9]{24}"));
        assertThat(((ToolCall) events.get(0)).id()).isNotEqualTo(((ToolCall) events.get(1)).id());
    }

    @Test
    void malformedJsonIsContentVerbatim() {
        String block = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}\n</tool_call>";
        OutputScanner scanner = scanner(PARSE_ALL);
        assertThat(feedAll(scanner, "Before ", block, "\nafter"))
                .containsExactly(new Content("Before " + block + "after"));
        assertThat(scanner.toolCallCount()).isZero();
    }

    @Test
    void argumentsGivenAsAJsonString() {
        assertThat(feedAll(scanner(PARSE_ALL),
                "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": [1, 2], \\\"b\\\": null}\"}</tool_call>"))
                .singleElement().isEqualTo(new ToolCall(0, ToolCallIds.seeded(1).next(), "f", "{\"a\":[1,2],\"b\":null}"));
    }

    @Test
    void unclosedToolCallWithCompleteJsonIsACallAtTheEnd() {
        OutputScanner scanner = scanner(PARSE_ALL);
        assertThat(scanner.feed("<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n")).isEmpty();
        assertThat(scanner.finish()).singleElement().isInstanceOf(ToolCall.class);
    }

    @Test
    void unclosedToolCallWithIncompleteJsonIsContentAtTheEnd() {
        OutputScanner scanner = scanner(PARSE_ALL);
        assertThat(scanner.feed("x<tool_call>{\"name\": \"f\", \"argu")).containsExactly(new Content("x"));
        assertThat(scanner.finish()).containsExactly(new Content("<tool_call>{\"name\": \"f\", \"argu"));
    }

    @Test
    void toolCallTagsInsideThinkAreReasoning() {
        assertThat(feedAll(scanner(PARSE_ALL), "<think>maybe <tool_call>{\"name\":\"f\"}</tool_call></think>ok"))
                .containsExactly(new Reasoning("maybe <tool_call>{\"name\":\"f\"}</tool_call>"), new Content("ok"));
    }

    @Test
    void toolCallsAreNotParsedWhenOff() {
        String text = "<tool_call>{\"name\":\"f\"}</tool_call>";
        assertThat(feedAll(scanner(new ScannerOptions(List.of(), true, false, false)), text))
                .containsExactly(new Content(text));
    }

    // ---- Lifecycle ----

    @Test
    void feedAfterFinishIsAnError() {
        OutputScanner scanner = scanner(PARSE_ALL);
        scanner.finish();
        assertThatThrownBy(() -> scanner.feed("x")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void finishTwiceGivesNothingTheSecondTime() {
        OutputScanner scanner = scanner(PARSE_ALL);
        scanner.feed("<thi");
        assertThat(scanner.finish()).containsExactly(new Content("<thi"));
        assertThat(scanner.finish()).isEmpty();
    }

    @Test
    void aStopFoundOnlyAtTheEndIsReported() {
        OutputScanner scanner = scanner(stops("abcdef", "cd"));
        assertThat(scanner.feed("zabcd")).containsExactly(new Content("z"));
        assertThat(scanner.finish()).containsExactly(new Content("ab"));
        assertThat(scanner.matchedStop()).isEqualTo("cd");
    }
}
