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
 * @param itsModelsOnly the finding matters only when the engine's own models are to be served: {@code doctor}
 *     makes it harmless, saying why, when the other engines serve every model there is (the RKLLM runtime's
 *     library and NPU on a machine of GGUF models)
 */
public record DoctorLine(Verdict verdict, String topic, String message, Optional<String> fix,
                         boolean itsModelsOnly) {

    /** The verdict, from harmless to blocking: FAIL means the server cannot serve until it is fixed. */
    public enum Verdict { OK, INFO, WARN, FAIL }

    public DoctorLine {
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(fix, "fix");
    }

    public DoctorLine(Verdict verdict, String topic, String message, Optional<String> fix) {
        this(verdict, topic, message, fix, false);
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

    /** The same finding, blocking only when the engine's own models are to be served. */
    public DoctorLine onlyForItsModels() {
        return new DoctorLine(verdict, topic, message, fix, true);
    }

    /** The same finding, no longer blocking nor warning, with why (e.g. a device that --simulate does not need). */
    public DoctorLine notBlocking(String why) {
        return verdict == Verdict.FAIL || verdict == Verdict.WARN
                ? new DoctorLine(Verdict.INFO, topic, message + " (" + why + ")", Optional.empty(), itsModelsOnly)
                : this;
    }
}
