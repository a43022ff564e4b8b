package io.rkllm.server.engine.contract;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the doctor looks at the machine: {@code /sys}, {@code /dev}, {@code /etc} (the service user's
 * groups, /etc/default) and {@code root} for the rest (the service's unit file, its state directory).
 * Tests point these at a fake tree.
 */
public record SystemRoots(Path sys, Path dev, Path etc, Path root) {

    public SystemRoots {
        Objects.requireNonNull(sys, "sys");
        Objects.requireNonNull(dev, "dev");
        Objects.requireNonNull(etc, "etc");
        Objects.requireNonNull(root, "root");
    }

    /** The real machine. */
    public static SystemRoots host() {
        return new SystemRoots(Path.of("/sys"), Path.of("/dev"), Path.of("/etc"), Path.of("/"));
    }

    /** {@code root/sys}, {@code root/dev}, {@code root/etc}, {@code root}: a fake machine for tests. */
    public static SystemRoots under(Path root) {
        return new SystemRoots(root.resolve("sys"), root.resolve("dev"), root.resolve("etc"), root);
    }

    /** An absolute path of the machine ({@code /var/lib/...}) in this tree. */
    public Path resolve(String absolute) {
        return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
    }
}
