package io.rkllm.server.pipeline.output;

import java.util.List;
import java.util.Optional;

/**
 * The calls of an output's tool-call blocks as the scanner passes them on: an open block's as far as they are
 * certain ({@link StreamedCalls}), a closed block's whole, numbered across the output, with an id each (the model's
 * own, else a new one).
 */
final class CallEmitter {
    /** What a closed block turned out to be. */
    enum Closed {
        /** Its calls, passed on. */
        CALLS,
        /** Calls were begun while it was open, but its whole text reads as none: they were ended; its text follows. */
        BEGUN_THEN_TEXT,
        /** No call: its text is content. */
        TEXT
    }

    private final EventCollector events;
    private final ToolCallIds ids;
    /** The open block's calls passed on before it closes. */
    private StreamedCalls streamed = new StreamedCalls();
    private int count;
    /** The output ended inside a call passed on in part, which its text did not finish. */
    private boolean cut;

    CallEmitter(EventCollector events, ToolCallIds ids) {
        this.events = events;
        this.ids = ids;
    }

    /** Whether enough of the open block came since the last look ({@code held}: its text so far) to look again. */
    boolean due(int held) {
        return streamed.due(held);
    }

    /** The open block's calls as far as its text so far makes them certain. */
    void stream(BlockReading reading, String text) {
        for (OutputEvent.CallDelta delta : streamed.update(reading.readerText(text), reading, () -> count++,
                ids::next)) {
            events.callDelta(delta);
        }
    }

    /** A closed (or, at the output's end, unclosed) block whose text reads as {@code calls}, or as none. */
    Closed closed(Optional<List<FunctionCall>> calls, boolean atEnd) {
        StreamedCalls begun = streamed;
        streamed = new StreamedCalls();
        if (begun.any()) {
            List<FunctionCall> read = calls.orElse(List.of());
            begun.complete(read, atEnd).forEach(events::toolCall);
            cut |= atEnd && begun.cutShort();
            emit(read.subList(Math.min(begun.count(), read.size()), read.size()));
            return calls.isEmpty() ? Closed.BEGUN_THEN_TEXT : Closed.CALLS;
        }
        if (calls.isPresent()) {
            emit(calls.get());
            return Closed.CALLS;
        }
        return Closed.TEXT;
    }

    private void emit(List<FunctionCall> calls) {
        for (FunctionCall call : calls) {
            events.toolCall(new OutputEvent.ToolCall(count++, call.id().orElseGet(ids::next), call.name(),
                    call.argumentsJson()));
        }
    }

    /** How many calls were passed on so far. */
    int count() {
        return count;
    }

    /** Whether the output ended inside a call passed on in part, which its text did not finish. */
    boolean cut() {
        return cut;
    }
}
