package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

/** Feeds pieces to a scanner and records what came out, merged across calls, for comparison. */
final class ScanRun {

    final List<OutputEvent> events = new ArrayList<>();
    /** The pieces of calls passed on before their blocks closed. */
    final List<OutputEvent.CallDelta> deltas = new ArrayList<>();
    final OutputScanner scanner;

    private ScanRun(OutputScanner scanner) {
        this.scanner = scanner;
    }

    static ScanRun of(ScannerOptions options, long idSeed, List<String> pieces) {
        ScanRun run = new ScanRun(new OutputScanner(options, ToolCallIds.seeded(idSeed)));
        for (String piece : pieces) {
            run.add(run.scanner.feed(piece));
        }
        run.add(run.scanner.finish());
        return run;
    }

    private void add(List<OutputEvent> batch) {
        for (OutputEvent event : batch) {
            switch (event) {
                case OutputEvent.Content c -> assertThat(c.text()).as("empty content event").isNotEmpty();
                case OutputEvent.Reasoning r -> assertThat(r.text()).as("empty reasoning event").isNotEmpty();
                case OutputEvent.ToolCall ignored -> {
                }
                case OutputEvent.CallDelta d -> {
                    deltas.add(d);
                    continue; // the calls' streaming has tests of its own; these check what they add up to
                }
            }
            events.add(event);
        }
    }

    /** The events with consecutive content (and reasoning) merged, however the pieces were split. */
    List<OutputEvent> merged() {
        return merge(events);
    }

    static List<OutputEvent> merge(List<OutputEvent> events) {
        List<OutputEvent> out = new ArrayList<>();
        for (OutputEvent event : events) {
            OutputEvent last = out.isEmpty() ? null : out.getLast();
            if (last instanceof OutputEvent.Content(String a) && event instanceof OutputEvent.Content(String b)) {
                out.set(out.size() - 1, new OutputEvent.Content(a + b));
            } else if (last instanceof OutputEvent.Reasoning(String a)
                    && event instanceof OutputEvent.Reasoning(String b)) {
                out.set(out.size() - 1, new OutputEvent.Reasoning(a + b));
            } else {
                out.add(event);
            }
        }
        return out;
    }

    /** Splits {@code text} into pieces at the given code point offsets (ascending). */
    static List<String> splitAt(String text, int... codePointOffsets) {
        List<String> pieces = new ArrayList<>();
        int previous = 0;
        for (int cp : codePointOffsets) {
            int index = text.offsetByCodePoints(0, cp);
            pieces.add(text.substring(previous, index));
            previous = index;
        }
        pieces.add(text.substring(previous));
        pieces.removeIf(String::isEmpty);
        return pieces;
    }
}
