package io.rkllm.server.pipeline.output;

import java.util.List;
import java.util.Objects;

/**
 * What {@link OutputScanner} looks for in the model's output.
 *
 * @param stopStrings      strings that end the answer when they occur in content text (outside think and
 *                         tool-call blocks); null and empty entries and duplicates are dropped
 * @param parseThink       route {@code <think>...</think>} blocks to reasoning
 * @param startInsideThink the prompt already opened a think block (the output starts with reasoning and
 *                         contains only {@code </think>}); ignored unless {@code parseThink}
 * @param parseToolCalls   turn {@code <tool_call>...</tool_call>} blocks (Qwen/Hermes format) into tool calls
 */
public record ScannerOptions(List<String> stopStrings, boolean parseThink, boolean startInsideThink,
                             boolean parseToolCalls) {

    public ScannerOptions {
        stopStrings = stopStrings == null ? List.of()
                : stopStrings.stream().filter(Objects::nonNull).filter(s -> !s.isEmpty()).distinct().toList();
    }

    /** Nothing parsed, no stop strings: every piece is content, emitted as it arrives. */
    public static ScannerOptions passthrough() {
        return new ScannerOptions(List.of(), false, false, false);
    }

    /** An answer's options: think blocks parsed, {@code stopStrings} honoured, no tool calls. */
    public static ScannerOptions forAnswer(List<String> stopStrings) {
        return new ScannerOptions(stopStrings, true, false, false);
    }

    /** The same options, the prompt having opened a think block (or not). */
    public ScannerOptions startingInsideThink(boolean value) {
        return new ScannerOptions(stopStrings, parseThink, value, parseToolCalls);
    }

    /** The same options, parsing tool calls (or not). */
    public ScannerOptions withToolCalls(boolean value) {
        return new ScannerOptions(stopStrings, parseThink, startInsideThink, value);
    }

    /** The same options with other stop strings. */
    public ScannerOptions withStopStrings(List<String> strings) {
        return new ScannerOptions(strings, parseThink, startInsideThink, parseToolCalls);
    }
}
