package io.rkllm.server.pipeline.output;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of one tool-call block passed on before the block closes, as llama-server streams them: a call's name
 * once it is written, then its arguments as far as they are certain.
 *
 * <p>Certain is what two readings of the block so far agree on: the block ended where it is ({@link
 * CallReader#endings}: open strings and tags closed) and the block ended after more text ({@link
 * CallJson#UNWRITTEN} before the same ending). Whatever the model writes next lies between those two, so their
 * calls' common start is the start of the calls it will end with: {@code {"city":"Par} while the value is written,
 * no closing quote until it is closed. Calls before the one being written are whole. Readings that agree on
 * everything tell nothing (the reader looked past where the text stood in: a tag's attributes). An argument whose
 * type depends on its text ({@code tr} is text, {@code true} is not) is not read until it ends
 * ({@link CallJson.Unsettled}).
 *
 * <p>Each reading is linear in the block's text; the block is read again on each new piece until it is 1,024
 * characters long, then each time it has grown by a sixteenth (pieces of 64 characters and more), so the work stays
 * linear in the output whatever its length.
 */
final class StreamedCalls {
    private static final Logger LOG = LoggerFactory.getLogger(StreamedCalls.class);
    /** Blocks shorter than this are read again on every piece. */
    static final int READ_EVERY_PIECE_BELOW = 1024;

    /** What the reader makes of a block's text, and how an unclosed one ends. */
    interface Reading {
        Optional<List<FunctionCall>> read(String text);

        List<CallEnding> endings(String text);
    }

    /** A call passed on in part: what was sent of it, and the whole it then was as far as anyone can tell. */
    private static final class Started {
        final int index;
        final String id;
        final String name;
        String sent = "";
        String guess;

        Started(int index, String id, String name) {
            this.index = index;
            this.id = id;
            this.name = name;
        }
    }

    /** One call as both readings have it: its name, the id the model wrote, the certain start of its arguments. */
    record Certain(String name, Optional<String> id, String arguments, String guess) {
    }

    private final List<Started> started = new ArrayList<>();
    private int readAt = -1;
    private boolean cutShort;

    /** Whether a block of {@code length} characters is to be read again. */
    boolean due(int length) {
        return length != readAt && (length < READ_EVERY_PIECE_BELOW || length - readAt >= length / 16);
    }

    /** Whether a call of the block was passed on in part. */
    boolean any() {
        return !started.isEmpty();
    }

    /**
     * The block's text so far: the pieces of its calls that became certain since the last time.
     *
     * @param index the next call's index (taken only when a call starts)
     * @param id a new call id (taken only when a call the model gave no id starts)
     */
    List<OutputEvent.CallDelta> update(String text, Reading reading, IntSupplier index, Supplier<String> id) {
        if (!due(text.length())) {
            return List.of();
        }
        readAt = text.length();
        List<Certain> certain = certain(text, reading);
        List<OutputEvent.CallDelta> deltas = new ArrayList<>();
        for (int i = 0; i < certain.size(); i++) {
            Certain c = certain.get(i);
            if (i == started.size()) {
                if (c.arguments().isEmpty()) {
                    break;
                }
                started.add(new Started(index.getAsInt(), c.id().orElseGet(id), c.name()));
            }
            Started s = started.get(i);
            if (!s.name.equals(c.name()) || !c.arguments().startsWith(s.sent)) {
                break; // cannot happen when the readings agree; the block's end settles it
            }
            if (c.arguments().length() > s.sent.length()) {
                deltas.add(new OutputEvent.CallDelta(s.index, s.id, s.name, c.arguments().substring(s.sent.length())));
                s.sent = c.arguments();
                s.guess = c.guess();
            }
        }
        return deltas;
    }

    /**
     * The calls passed on in part, whole, from the calls their block holds once closed: each as read, or, where the
     * block turned out to say something else (a block that stopped being well-formed), as far as it was sent and
     * closed as then guessed, so that a client's pieces still add up to the call's arguments.
     */
    List<OutputEvent.ToolCall> complete(List<FunctionCall> read, boolean cut) {
        List<OutputEvent.ToolCall> calls = new ArrayList<>();
        for (int i = 0; i < started.size(); i++) {
            Started s = started.get(i);
            FunctionCall f = i < read.size() ? read.get(i) : null;
            String arguments;
            if (f != null && f.name().equals(s.name) && f.argumentsJson().startsWith(s.sent)) {
                arguments = f.argumentsJson();
            } else {
                if (cut) {
                    LOG.debug("the output ended inside the call of {}: its arguments are those sent", s.name);
                } else {
                    LOG.warn("the block of the call of {} ended otherwise than its streamed start said: its"
                            + " arguments are those sent", s.name);
                }
                cutShort = true;
                arguments = s.guess;
            }
            calls.add(new OutputEvent.ToolCall(s.index, s.id, s.name, arguments));
        }
        return calls;
    }

    /** A call passed on in part ended as far as it was sent, not as its block said. */
    boolean cutShort() {
        return cutShort;
    }

    /** How many calls were passed on in part. */
    int count() {
        return started.size();
    }

    /** The calls both readings agree on, the last one in part. */
    static List<Certain> certain(String text, Reading reading) {
        for (CallEnding ending : reading.endings(text)) {
            Optional<List<FunctionCall>> now = readSafely(reading::read, ending.text() + ending.tail());
            if (now.isEmpty()) {
                continue;
            }
            Optional<List<FunctionCall>> later = readSafely(reading::read,
                    ending.text() + CallJson.UNWRITTEN + ending.tail());
            // readings that agree on everything tell nothing: the text not yet written went where the reader looks
            // past (a tag's attributes), not where the calls are still being written
            return later.filter(l -> !l.equals(now.get())).map(l -> agreed(now.get(), l)).orElse(List.of());
        }
        return List.of();
    }

    private static Optional<List<FunctionCall>> readSafely(Function<String, Optional<List<FunctionCall>>> read,
                                                           String text) {
        try {
            return read.apply(text);
        } catch (CallJson.Unsettled e) {
            return Optional.empty();
        }
    }

    private static List<Certain> agreed(List<FunctionCall> now, List<FunctionCall> later) {
        List<Certain> agreed = new ArrayList<>();
        for (int i = 0; i < Math.min(now.size(), later.size()); i++) {
            FunctionCall a = now.get(i);
            FunctionCall b = later.get(i);
            if (!a.name().equals(b.name())) {
                break;
            }
            String common = commonStart(a.argumentsJson(), b.argumentsJson());
            agreed.add(new Certain(a.name(), a.id().equals(b.id()) ? a.id() : Optional.empty(), common,
                    a.argumentsJson()));
            if (common.length() < a.argumentsJson().length()) {
                break;
            }
        }
        return agreed;
    }

    private static String commonStart(String a, String b) {
        int n = Math.min(a.length(), b.length());
        int i = 0;
        while (i < n && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return a.substring(0, i);
    }
}
