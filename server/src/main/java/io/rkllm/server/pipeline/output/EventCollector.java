package io.rkllm.server.pipeline.output;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Collects the events of one scanner call, merging consecutive content and consecutive reasoning text. */
final class EventCollector {

    private enum TextKind { CONTENT, REASONING }

    private List<OutputEvent> events;
    private final StringBuilder text = new StringBuilder();
    private TextKind textKind;

    void content(CharSequence source, int start, int end) {
        append(TextKind.CONTENT, source, start, end);
    }

    void content(String source) {
        append(TextKind.CONTENT, source, 0, source.length());
    }

    void reasoning(CharSequence source, int start, int end) {
        append(TextKind.REASONING, source, start, end);
    }

    void toolCall(OutputEvent.ToolCall call) {
        flushText();
        add(call);
    }

    void callDelta(OutputEvent.CallDelta delta) {
        flushText();
        add(delta);
    }

    /** The events collected since the last call; the collector is then empty. */
    List<OutputEvent> drain() {
        flushText();
        if (events == null) {
            return List.of();
        }
        List<OutputEvent> result = Collections.unmodifiableList(events);
        events = null;
        return result;
    }

    private void append(TextKind kind, CharSequence source, int start, int end) {
        if (start >= end) {
            return;
        }
        if (textKind != kind) {
            flushText();
            textKind = kind;
        }
        text.append(source, start, end);
    }

    private void flushText() {
        if (textKind == null) {
            return;
        }
        String s = text.toString();
        add(textKind == TextKind.CONTENT ? new OutputEvent.Content(s) : new OutputEvent.Reasoning(s));
        text.setLength(0);
        textKind = null;
    }

    private void add(OutputEvent event) {
        if (events == null) {
            events = new ArrayList<>(2);
        }
        events.add(event);
    }
}
