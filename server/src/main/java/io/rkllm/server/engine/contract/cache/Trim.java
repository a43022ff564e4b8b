package io.rkllm.server.engine.contract.cache;

import java.util.ArrayList;
import java.util.List;

/**
 * Which history messages a request leaves out so that the conversation fits the context. The model sees
 * {@code [pinFrom, pinTo)} and {@code [keepFrom, end)} of the history; everything else is left out. Trimming
 * a chat leaves out whole exchanges from the start ({@code pinFrom = pinTo = keepFrom}); a long agent loop in
 * the exchange under way also loses its oldest tool rounds, but keeps the user message that started it
 * (pinned), so the model never forgets the task it is working on.
 */
public record Trim(int pinFrom, int pinTo, int keepFrom) {
    /** Nothing left out. */
    public static final Trim NONE = new Trim(0, 0, 0);

    public Trim {
        if (pinFrom < 0 || pinTo < pinFrom || keepFrom < pinTo) {
            throw new IllegalArgumentException("bad trim " + pinFrom + "/" + pinTo + "/" + keepFrom);
        }
    }

    /** The first {@code count} history messages left out. */
    public static Trim oldest(int count) {
        return new Trim(count, count, count);
    }

    /** How many history messages are left out. */
    public int count() {
        return pinFrom + keepFrom - pinTo;
    }

    /** Whether it applies to a history of {@code size} messages. */
    public boolean appliesTo(int size) {
        return keepFrom <= size;
    }

    /** The history messages the model sees, in order. */
    public <T> List<T> kept(List<T> history) {
        List<T> kept = new ArrayList<>(history.size() - count());
        kept.addAll(history.subList(pinFrom, pinTo));
        kept.addAll(history.subList(keepFrom, history.size()));
        return kept;
    }

    /** The history messages left out, in order. */
    public <T> List<T> leftOut(List<T> history) {
        List<T> out = new ArrayList<>(count());
        out.addAll(history.subList(0, pinFrom));
        out.addAll(history.subList(pinTo, keepFrom));
        return out;
    }

    /** Whether this leaves out at least every message {@code other} leaves out. */
    public boolean covers(Trim other) {
        for (int i = 0; i < other.keepFrom; i++) {
            if (other.leavesOut(i) && !leavesOut(i)) {
                return false;
            }
        }
        return true;
    }

    private boolean leavesOut(int index) {
        return index < pinFrom || (index >= pinTo && index < keepFrom);
    }

    /** The value of the {@code X-RKLLM-Context-Trimmed} header. */
    public String note() {
        return pinTo > pinFrom
                ? count() + " earlier messages left out (the newest question kept)"
                : count() + " earliest messages left out";
    }
}
