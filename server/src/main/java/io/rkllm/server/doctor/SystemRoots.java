package io.rkllm.server.doctor;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the doctor looks at the machine: {@code /sys}, {@code /dev} and {@code /etc} (for the
 * service user's groups). Tests point these at a fake tree.
 */
public record SystemRoots(Path sys, Path dev, Path etc) {

    public SystemRoots {
        Objects.requireNonNull(sys, "sys");
        Objects.requireNonNull(dev, "dev");
        Objects.requireNonNull(etc, "etc");
    }

    /** The real machine. */
    public static SystemRoots host() {
        return new SystemRoots(Path.of("/sys"), Path.of("/dev"), Path.of("/etc"));
    }

    /** {@code root/sys}, {@code root/dev}, {@code root/etc}: a fake machine for tests. */
    public static SystemRoots under(Path root) {
        return new SystemRoots(root.resolve("sys"), root.resolve("dev"), root.resolve("etc"));
    }
}
