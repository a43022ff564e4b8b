package io.rkllm.server.engine.contract;

import java.util.Objects;
import java.util.Optional;

/**
 * One line an engine adds to {@code rkllm-server doctor}'s report: what was checked, what was found, and how to fix
 * it when something is wrong.
 *
 * @param verdict from harmless to blocking
 * @param topic a short name ({@code llama}, {@code rknn})
 * @param message what was found, in one line
 * @param fix what to do about it (present for WARN and FAIL)
 */
public record DoctorLine(Verdict verdict, String topic, String message, Optional<String> fix) {

    /** The verdict, from harmless to blocking: FAIL means the server cannot serve until it is fixed. */
    public enum Verdict { OK, INFO, WARN, FAIL }

    public DoctorLine {
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(fix, "fix");
    }

    public static DoctorLine ok(String topic, String message) {
        return new DoctorLine(Verdict.OK, topic, message, Optional.empty());
    }

    public static DoctorLine info(String topic, String message) {
        return new DoctorLine(Verdict.INFO, topic, message, Optional.empty());
    }

    public static DoctorLine warn(String topic, String message, String fix) {
        return new DoctorLine(Verdict.WARN, topic, message, Optional.of(fix));
    }

    public static DoctorLine fail(String topic, String message, String fix) {
        return new DoctorLine(Verdict.FAIL, topic, message, Optional.of(fix));
    }
}
