package io.rkllm.server.pipeline.output.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.OfferedTools;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.OutputScanner;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.output.ToolCallIds;
import io.rkllm.server.pipeline.output.calls.GemmaCalls;
import io.rkllm.server.pipeline.output.calls.PythonCalls;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a model writes at the edges of its dialect: cut off, nested too deep, its markers in prose, a stop string. */
class DialectEdgesTest {
    private static final String TOOLS = "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}]";

    private static List<OutputEvent> scan(String dialect, List<String> stops, boolean startInside, String... pieces) {
        ScannerOptions options = new ScannerOptions(stops, true, startInside, true,
                Dialects.named(dialect).orElseThrow().syntax(), OfferedTools.of(TOOLS));
        OutputScanner scanner = new OutputScanner(options, ToolCallIds.seeded(1));
        List<OutputEvent> events = new ArrayList<>();
        for (String piece : pieces) {
            events.addAll(scanner.feed(piece));
        }
        events.addAll(scanner.finish());
        return events;
    }

    private static String content(List<OutputEvent> events) {
        StringBuilder out = new StringBuilder();
        events.stream().filter(e -> e instanceof OutputEvent.Content).forEach(e -> out.append(((OutputEvent.Content) e)
                .text()));
        return out.toString();
    }

    private static String reasoning(List<OutputEvent> events) {
        StringBuilder out = new StringBuilder();
        events.stream().filter(e -> e instanceof OutputEvent.Reasoning).forEach(e -> out.append(
                ((OutputEvent.Reasoning) e).text()));
        return out.toString();
    }

    @Test
    void aBlockCutInItsClosingMarkerLosesNothing() {
        assertThat(content(scan("hermes", List.of(), false, "Hi <tool_call>oops</tool_")))
                .isEqualTo("Hi <tool_call>oops</tool_");
    }

    @Test
    void aStopStringInAnAnswerThatLookedLikeACallStillStopsIt() {
        // Llama 3's calls are the whole answer: one that is no call is content, and its stop strings apply
        OutputScanner scanner = new OutputScanner(new ScannerOptions(List.of("END"), true, false, true,
                Dialects.named("llama3").orElseThrow().syntax(), OfferedTools.of(TOOLS)), ToolCallIds.seeded(1));
        List<OutputEvent> events = new ArrayList<>(scanner.feed("{\"a\": 1} END trailing"));
        events.addAll(scanner.finish());
        assertThat(content(events)).isEqualTo("{\"a\": 1} ");
        assertThat(scanner.stopped()).isTrue();
    }

    @Test
    void qwen3CodersFunctionMarkerInProseIsProse() {
        assertThat(content(scan("qwen3-coder", List.of("STOP"), false, "Write <function=name> then ", "STOP and more")))
                .isEqualTo("Write <function=name> then ");
        List<OutputEvent> thought = scan("qwen3-coder", List.of(), true, "I think <function=x> is the syntax.",
                "</think>Answer");
        assertThat(reasoning(thought)).isEqualTo("I think <function=x> is the syntax.");
        assertThat(content(thought)).isEqualTo("Answer");
    }

    @Test
    void callsNestedBeyondReasonAreNoCalls() {
        CallReader python = new PythonCalls();
        assertThat(python.read("[f(a=" + "[".repeat(20_000) + ")]", OfferedTools.ANY)).isEmpty();
        assertThat(new GemmaCalls().read("call:f{a:" + "[".repeat(20_000) + "}", OfferedTools.ANY)).isEmpty();
    }

    @Test
    void kimisBareCallBeforeTheEndOfASectionItNeverOpened() {
        List<OutputEvent> events = scan("kimi-k2", List.of(), false, "<|tool_call_begin|>functions.get_weather:0"
                + "<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>");
        assertThat(events).singleElement().isInstanceOfSatisfying(OutputEvent.ToolCall.class,
                c -> assertThat(c.name()).isEqualTo("get_weather"));
    }

    @Test
    void gptOssCutAfterItsNextHeaderOpensWritesNoMarkup() {
        List<OutputEvent> events = scan("gpt-oss", List.of(), false, "<|channel|>final<|message|>Done.<|end|>",
                "<|start|>assistant");
        assertThat(content(events)).isEqualTo("Done.");
    }

    @Test
    void aCallOfAToolNotOfferedIsContentVerbatim() {
        String call = "<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {}}\n</tool_call>";
        assertThat(content(scan("hermes", List.of(), false, call))).isEqualTo(call);
    }
}
