package io.rkllm.server.pipeline.output;

import java.util.List;
import java.util.Objects;

/**
 * What {@link OutputScanner} looks for in the model's output.
 *
 * @param stopStrings      strings that end the answer when they occur in content text (outside reasoning and
 *                         tool-call blocks); null and empty entries and duplicates are dropped
 * @param parseThink       route reasoning blocks to reasoning
 * @param startInsideThink the prompt already opened the syntax's first reasoning block (the output starts with
 *                         reasoning and contains only its closing marker); ignored unless {@code parseThink}
 * @param parseToolCalls   turn tool-call blocks into tool calls (else they are content, markers and all)
 * @param syntax           the markers of the model's family ({@link Syntax#HERMES} unless said otherwise)
 * @param tools            the tools offered: the names a call may have, the types of their parameters
 */
public record ScannerOptions(List<String> stopStrings, boolean parseThink, boolean startInsideThink,
                             boolean parseToolCalls, Syntax syntax, OfferedTools tools) {

    public ScannerOptions {
        stopStrings = stopStrings == null ? List.of()
                : stopStrings.stream().filter(Objects::nonNull).filter(s -> !s.isEmpty()).distinct().toList();
        Objects.requireNonNull(syntax, "syntax");
        Objects.requireNonNull(tools, "tools");
    }

    /** Hermes' syntax, any tool name. */
    public ScannerOptions(List<String> stopStrings, boolean parseThink, boolean startInsideThink,
                          boolean parseToolCalls) {
        this(stopStrings, parseThink, startInsideThink, parseToolCalls, Syntax.HERMES, OfferedTools.ANY);
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
        return new ScannerOptions(stopStrings, parseThink, value, parseToolCalls, syntax, tools);
    }

    /** The same options, parsing tool calls (or not). */
    public ScannerOptions withToolCalls(boolean value) {
        return new ScannerOptions(stopStrings, parseThink, startInsideThink, value, syntax, tools);
    }

    /** The same options, parsing tool calls of {@code offered} tools. */
    public ScannerOptions withToolCalls(OfferedTools offered) {
        return new ScannerOptions(stopStrings, parseThink, startInsideThink, true, syntax, offered);
    }

    /** The same options with other stop strings. */
    public ScannerOptions withStopStrings(List<String> strings) {
        return new ScannerOptions(strings, parseThink, startInsideThink, parseToolCalls, syntax, tools);
    }

    /** The same options in another family's syntax. */
    public ScannerOptions inSyntax(Syntax value) {
        return new ScannerOptions(stopStrings, parseThink, startInsideThink, parseToolCalls, value, tools);
    }
}
