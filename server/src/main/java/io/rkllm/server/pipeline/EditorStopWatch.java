package io.rkllm.server.pipeline;

import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.request.EditorStops;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A run's {@link EditorStops}, watched over the answer's content as it comes: llama-server's rules. A new line whose
 * first character that is not a space or a tab comes after less indentation than asked ends the answer before that
 * character; a token that writes a new line once the answer has been written for longer than the time given ends it
 * after that token. One per run, on the thread that reads it.
 */
final class EditorStopWatch {
    private final EditorStops stops;
    /** After a new line, before its first character that is not indentation. */
    private boolean lineStart;
    private int lineIndent;

    EditorStopWatch(EditorStops stops) {
        this.stops = stops;
    }

    /**
     * One token's events, cut where the answer must end; empty when it goes on.
     *
     * @param writingNanos how long the answer has been written (since its first token)
     */
    Optional<List<OutputEvent>> check(List<OutputEvent> events, long writingNanos) {
        if (stops.isNone()) {
            return Optional.empty();
        }
        boolean newLine = false;
        for (int e = 0; e < events.size(); e++) {
            if (!(events.get(e) instanceof OutputEvent.Content content)) {
                continue;
            }
            String text = content.text();
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (lineStart && (c == ' ' || c == '\t')) {
                    lineIndent++;
                    continue;
                }
                if (lineStart) {
                    // as llama-server: whatever follows the indentation decides, a blank line's new line too
                    lineStart = false;
                    if (lineIndent < stops.indent()) {
                        return Optional.of(cut(events, e, i));
                    }
                }
                if (c == '\n') {
                    newLine = true;
                    lineStart = stops.indent() > 0;
                    lineIndent = 0;
                }
            }
        }
        boolean late = !stops.after().isZero() && writingNanos > stops.after().toNanos();
        return newLine && late ? Optional.of(events) : Optional.empty();
    }

    /** The events before character {@code at} of event {@code index}. */
    private static List<OutputEvent> cut(List<OutputEvent> events, int index, int at) {
        List<OutputEvent> kept = new ArrayList<>(events.subList(0, index));
        String text = ((OutputEvent.Content) events.get(index)).text();
        if (at > 0) {
            kept.add(new OutputEvent.Content(text.substring(0, at)));
        }
        return kept;
    }
}
