package io.rkllm.server.tools.doctor;

import io.rkllm.server.engine.contract.DoctorLine;
import java.util.Objects;
import java.util.Optional;

/**
 * One line of the doctor's report: what was checked, what was found and, when something is wrong,
 * how to fix it.
 *
 * @param status  the verdict; {@link Status#FAIL} means the server cannot serve until it is fixed
 * @param topic   a short name: {@code java}, {@code config}, {@code library}, {@code driver}, ...
 * @param message what was found, in one line
 * @param fix     what to do about it (present for WARN and FAIL)
 */
public record Check(Status status, String topic, String message, Optional<String> fix) {

    /** The verdict of one check, from harmless to blocking. */
    public enum Status {
        OK("ok"), INFO("info"), WARN("warn"), FAIL("FAIL");

        private final String label;

        Status(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    public Check {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(fix, "fix");
    }

    /** An engine's line, as the report writes it. */
    static Check of(DoctorLine line) {
        return new Check(Status.valueOf(line.verdict().name()), line.topic(), line.message(), line.fix());
    }

    static Check ok(String topic, String message) {
        return new Check(Status.OK, topic, message, Optional.empty());
    }

    static Check info(String topic, String message) {
        return new Check(Status.INFO, topic, message, Optional.empty());
    }

    static Check warn(String topic, String message, String fix) {
        return new Check(Status.WARN, topic, message, Optional.of(fix));
    }

    static Check fail(String topic, String message, String fix) {
        return new Check(Status.FAIL, topic, message, Optional.of(fix));
    }

    /** {@code [FAIL] topic     message}, then {@code        fix: ...} when there is a fix. */
    public String render() {
        StringBuilder s = new StringBuilder(String.format("[%-4s] %-8s %s", status.label(), topic, message));
        fix.ifPresent(f -> s.append(System.lineSeparator()).append("                fix: ").append(f));
        return s.toString();
    }
}
