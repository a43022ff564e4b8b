package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.pipeline.output.dialect.Dialects;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Calls passed on while their block is still open, as llama-server streams them: the pieces of a call's arguments
 * are what more text cannot change, and add up to the start of the arguments the call ends with.
 */
class StreamedCallsTest {
    private static final String WEATHER = """
            [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
              "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
             {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
              "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}]""";

    record Streamed(List<String> pieces, List<OutputEvent.ToolCall> calls, String content, int piecesBeforeClose) {
    }

    private static Streamed charByChar(String dialect, String output) {
        ScannerOptions options = new ScannerOptions(List.of(), true, false, true,
                Dialects.named(dialect).orElseThrow().syntax(), OfferedTools.of(WEATHER));
        OutputScanner scanner = new OutputScanner(options, ToolCallIds.seeded(3));
        List<OutputEvent> events = new ArrayList<>();
        int close = output.lastIndexOf('}') + 1;
        int before = -1;
        for (int i = 0; i < output.length(); i++) {
            events.addAll(scanner.feed(output.substring(i, i + 1)));
            if (i + 1 == close) {
                before = events.size();
            }
        }
        events.addAll(scanner.finish());
        List<String> pieces = new ArrayList<>();
        List<OutputEvent.ToolCall> calls = new ArrayList<>();
        StringBuilder content = new StringBuilder();
        int piecesBefore = 0;
        for (int i = 0; i < events.size(); i++) {
            switch (events.get(i)) {
                case OutputEvent.CallDelta d -> {
                    pieces.add(d.arguments());
                    piecesBefore += i < before ? 1 : 0;
                }
                case OutputEvent.ToolCall t -> calls.add(t);
                case OutputEvent.Content c -> content.append(c.text());
                case OutputEvent.Reasoning r -> {
                }
            }
        }
        return new Streamed(pieces, calls, content.toString(), piecesBefore);
    }

    @Test
    void aJsonCallsStringArgumentStreamsAsItIsWrittenItsNumberOnceItEnds() {
        Streamed s = charByChar("hermes", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                + "{\"city\": \"Paris\", \"days\": 3}}\n</tool_call>");
        // the value's closing quote waits: a quote in the text could still be escaped; 3 could still be 31
        assertThat(s.pieces()).containsExactly("{\"city\":\"", "P", "a", "r", "i", "s");
        assertThat(s.calls()).extracting(OutputEvent.ToolCall::argumentsJson)
                .containsExactly("{\"city\":\"Paris\",\"days\":3}");
        assertThat(s.content()).isEmpty();
    }

    @Test
    void anXmlCallsTextStreamsLineByLineWithoutTheFormatsLineBreaks() {
        Streamed s = charByChar("qwen3-coder", """
                <tool_call>
                <function=write_file>
                <parameter=path>
                a.txt
                </parameter>
                <parameter=content>
                one
                two
                </parameter>
                </function>
                </tool_call>""");
        assertThat(String.join("", s.pieces())).isEqualTo("{\"path\":\"a.txt\",\"content\":\"one\\ntwo");
        assertThat(s.pieces().size()).isGreaterThan(5);
        assertThat(s.calls()).extracting(OutputEvent.ToolCall::argumentsJson)
                .containsExactly("{\"path\":\"a.txt\",\"content\":\"one\\ntwo\"}");
    }

    @Test
    void anArgumentTypedByWhatItHoldsWaitsForItsEnd() {
        // "tr" would be text, "true" is not: a value typed by its text is passed on once it is whole
        Streamed s = charByChar("qwen3-coder", """
                <tool_call>
                <function=get_weather>
                <parameter=days>
                12
                </parameter>
                <parameter=city>
                Oslo
                </parameter>
                </function>
                </tool_call>""");
        StringBuilder sent = new StringBuilder();
        for (String piece : s.pieces()) {
            sent.append(piece);
            assertThat(sent.toString()).as("what was sent").doesNotContain("\"days\":1,").doesNotEndWith("\"days\":1");
        }
        assertThat(String.join("", s.pieces())).isEqualTo("{\"days\":12,\"city\":\"Oslo");
        assertThat(s.calls()).extracting(OutputEvent.ToolCall::argumentsJson)
                .containsExactly("{\"days\":12,\"city\":\"Oslo\"}");
    }

    @Test
    void aCallBegunThenSpoiledEndsAsFarAsItWasSentAndItsTextIsKept() {
        String block = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}}\n</tool_call>";
        Streamed s = charByChar("hermes", block);
        assertThat(String.join("", s.pieces())).isEqualTo("{\"city\":\"Rome");
        assertThat(s.calls()).extracting(OutputEvent.ToolCall::argumentsJson).containsExactly("{\"city\":\"Rome\"}");
        assertThat(s.content()).isEqualTo(block);
    }

    @Test
    void anOutputCutInsideABegunCallEndsItAsFarAsItWasSentAndSaysSo() {
        ScannerOptions options = new ScannerOptions(List.of(), true, false, true,
                Dialects.named("hermes").orElseThrow().syntax(), OfferedTools.of(WEATHER));
        OutputScanner scanner = new OutputScanner(options, ToolCallIds.seeded(3));
        String cut = "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"hal";
        List<OutputEvent> events = new ArrayList<>();
        for (int i = 0; i < cut.length(); i++) {
            events.addAll(scanner.feed(cut.substring(i, i + 1)));
        }
        assertThat(scanner.callCut()).isFalse();
        events.addAll(scanner.finish());
        assertThat(scanner.callCut()).isTrue();
        assertThat(events).filteredOn(OutputEvent.ToolCall.class::isInstance)
                .extracting(e -> ((OutputEvent.ToolCall) e).argumentsJson())
                .containsExactly("{\"path\":\"a.txt\",\"content\":\"hal\"}");
        assertThat(events).filteredOn(OutputEvent.Content.class::isInstance)
                .extracting(e -> ((OutputEvent.Content) e).text()).containsExactly(cut);
    }

    @Test
    void aToolNotOfferedNeverStarts() {
        String block = "<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/home\"}}\n</tool_call>";
        Streamed s = charByChar("hermes", block);
        assertThat(s.pieces()).isEmpty();
        assertThat(s.calls()).isEmpty();
        assertThat(s.content()).isEqualTo(block);
    }

    @Test
    void twoCallsInOneBlockTheFirstWholeBeforeTheSecondStarts() {
        Streamed s = charByChar("mistral-nemo", "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": "
                + "{\"city\": \"Oslo\"}}, {\"name\": \"write_file\", \"arguments\": {\"path\": \"b\"}}]");
        assertThat(s.calls()).extracting(OutputEvent.ToolCall::argumentsJson)
                .containsExactly("{\"city\":\"Oslo\"}", "{\"path\":\"b\"}");
        // the first call's pieces end with its closing brace before the second's begin
        assertThat(String.join("", s.pieces())).isEqualTo("{\"city\":\"Oslo\"}{\"path\":\"b");
    }

    @Test
    void aLongArgumentIsReadAgainLessOftenYetStreamsAllTheWay() {
        String text = "word ".repeat(4000);
        Streamed s = charByChar("hermes", "<tool_call>\n{\"name\": \"write_file\", \"arguments\": "
                + "{\"path\": \"x\", \"content\": \"" + text + "\"}}\n</tool_call>");
        assertThat(s.calls()).extracting(OutputEvent.ToolCall::argumentsJson)
                .containsExactly("{\"path\":\"x\",\"content\":\"" + text + "\"}");
        String sent = String.join("", s.pieces());
        // every piece up to 1,024 characters of block, then one each sixteenth: a few dozen more, not thousands
        assertThat(s.pieces().size()).isBetween(900, 1100);
        assertThat(sent.length()).isGreaterThan(text.length() * 9 / 10);
        assertThat(s.piecesBeforeClose()).isEqualTo(s.pieces().size());
    }
}
