package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.DoctorLine;
import io.rkllm.server.engine.contract.SystemRoots;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The RKNPU kernel driver, the NPU device nodes and their clocks, read from {@code /sys} and {@code /dev}. */
final class NpuChecks {
    /** The oldest RKNPU driver the RKLLM runtime accepts. */
    static final int[] REQUIRED_DRIVER = {0, 9, 8};
    static final String DRIVER_FILE = "kernel/debug/rknpu/version";
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

    private final SystemRoots roots;
    private final Accounts accounts;

    NpuChecks(SystemRoots roots, Accounts accounts) {
        this.roots = roots;
        this.accounts = accounts;
    }

    /** The RKNPU driver version from debugfs (root only) or the module's sysfs version, against 0.9.8. */
    DoctorLine driver() {
        Path debugfs = roots.sys().resolve(DRIVER_FILE);
        Path module = roots.sys().resolve("module/rknpu/version");
        String text = null;
        Path source = null;
        boolean denied = false;
        for (Path candidate : List.of(debugfs, module)) {
            try {
                text = Files.readString(candidate, StandardCharsets.UTF_8).strip();
                source = candidate;
                break;
            } catch (AccessDeniedException e) {
                denied = true;
            } catch (NoSuchFileException e) {
                // try the next place
            } catch (IOException | SecurityException e) {
                denied |= Files.exists(candidate);
            }
        }
        if (text == null) {
            Path debugRoot = roots.sys().resolve("kernel/debug");
            boolean debugReadable = Files.isDirectory(debugRoot) && Files.isReadable(debugRoot)
                    && Files.isExecutable(debugRoot);
            if (denied || (Files.isDirectory(debugRoot) && !debugReadable)) {
                return DoctorLine.warn("driver", "cannot read " + debugfs + " (debugfs is readable by root only)",
                        "run `sudo rkllm-server doctor`, or `sudo cat /sys/kernel/debug/rknpu/version`: it must say"
                                + " 0.9.8 or newer");
            }
            if (!npuDevices().isEmpty()) {
                return DoctorLine.warn("driver", "an NPU device exists but " + debugfs + " does not (debugfs not mounted?)",
                        "`sudo mount -t debugfs none /sys/kernel/debug`, then `sudo cat /sys/kernel/debug/rknpu/version`"
                                + " (0.9.8 or newer is needed)");
            }
            return DoctorLine.fail("driver", "no RKNPU driver: " + debugfs + " does not exist",
                    "boot Rockchip's vendor kernel with the RKNPU driver 0.9.8+ (Armbian 'vendor' kernel, or the"
                            + " board maker's 6.1 image); mainline kernels (the 'rocket' driver) are not supported");
        }
        Matcher m = VERSION.matcher(text);
        if (!m.find()) {
            return DoctorLine.warn("driver", "RKNPU driver version unreadable in " + source + ": '" + text + "'",
                    "check it yourself: the RKLLM runtime needs 0.9.8 or newer");
        }
        int[] found = {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
        String version = m.group();
        if (compare(found, REQUIRED_DRIVER) < 0) {
            return DoctorLine.fail("driver", "RKNPU driver " + version + " is older than 0.9.8, which the RKLLM runtime"
                    + " needs (" + source + ")", "update the board's vendor kernel (e.g. `sudo apt update && sudo apt"
                    + " full-upgrade` on Armbian/Ubuntu vendor images, or a newer image); see docs/deploy.md");
        }
        return DoctorLine.ok("driver", "RKNPU driver " + version + " (0.9.8 or newer needed)");
    }

    static int compare(int[] a, int[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            if (a[i] != b[i]) {
                return Integer.compare(a[i], b[i]);
            }
        }
        return Integer.compare(a.length, b.length);
    }

    /**
     * The NPU's device nodes: {@code /dev/rknpu} (older kernels) and the DRM render node whose device is
     * the RKNPU (sysfs says so), else {@code /dev/dri/renderD129}, where RK3588 vendor kernels put it.
     */
    List<Path> npuDevices() {
        List<Path> nodes = new ArrayList<>();
        Path misc = roots.dev().resolve("rknpu");
        if (Files.exists(misc)) {
            nodes.add(misc);
        }
        List<Path> identified = new ArrayList<>();
        try (DirectoryStream<Path> drm = Files.newDirectoryStream(roots.sys().resolve("class/drm"), "renderD*")) {
            for (Path entry : drm) {
                if (mentionsRknpu(entry.resolve("device/uevent"))) {
                    identified.add(roots.dev().resolve("dri").resolve(entry.getFileName().toString()));
                }
            }
        } catch (IOException | SecurityException e) {
            // no DRM class: nothing identified
        }
        identified.sort(null);
        if (identified.isEmpty()) {
            Path usual = roots.dev().resolve("dri/renderD129");
            if (Files.exists(usual)) {
                identified.add(usual);
            }
        }
        nodes.addAll(identified);
        return nodes;
    }

    private static boolean mentionsRknpu(Path uevent) {
        try {
            return Files.readString(uevent, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT).contains("rknpu");
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    /** One line per NPU device node: can the service user (or, without one, the current user) open it? */
    List<DoctorLine> devices(String serviceUser, String currentUser) {
        List<Path> nodes = npuDevices();
        if (nodes.isEmpty()) {
            return List.of(DoctorLine.fail("device", "no NPU device node (" + roots.dev().resolve("dri/renderD129") + " or "
                            + roots.dev().resolve("rknpu") + ")",
                    "boot Rockchip's vendor kernel with the RKNPU driver (see docs/deploy.md); `ls -l /dev/dri`"
                            + " shows the render nodes"));
        }
        List<DoctorLine> checks = new ArrayList<>();
        Optional<Accounts.User> service = accounts.user(serviceUser);
        for (Path node : nodes) {
            checks.add(device(node, service, serviceUser, currentUser));
        }
        return checks;
    }

    private DoctorLine device(Path node, Optional<Accounts.User> service, String serviceUser, String currentUser) {
        int uid;
        int gid;
        int mode;
        try {
            uid = (Integer) Files.getAttribute(node, "unix:uid");
            gid = (Integer) Files.getAttribute(node, "unix:gid");
            mode = (Integer) Files.getAttribute(node, "unix:mode");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return DoctorLine.warn("device", node + ": cannot read its owner and mode (" + e.getMessage() + ")",
                    "`ls -l " + node + "`: the service user must be able to read and write it");
        }
        String owner = accounts.userName(uid) + ":" + accounts.groupName(gid);
        String perms = PosixFilePermissions.toString(permissions(mode));
        String described = node + " (" + perms + " " + owner + ")";
        boolean currentCan = Files.isReadable(node) && Files.isWritable(node);
        String current = "current user " + currentUser + (currentCan ? " can open it" : " cannot open it");
        if (service.isPresent()) {
            Accounts.User user = service.get();
            boolean serviceCan = canReadWrite(user, uid, gid, mode);
            String groups = String.join(",", accounts.groupNames(user));
            if (serviceCan) {
                return DoctorLine.ok("device", described + ": service user " + serviceUser + " (groups " + groups
                        + ") can open it; " + current);
            }
            return DoctorLine.fail("device", described + ": service user " + serviceUser + " (groups " + groups
                    + ") cannot open it; " + current, grantFix(node, gid, serviceUser)
                    + ", then `sudo systemctl restart rkllm-server`");
        }
        if (currentCan) {
            return DoctorLine.ok("device", described + ": " + current + " (no '" + serviceUser + "' service user here)");
        }
        return DoctorLine.fail("device", described + ": " + current + " (no '" + serviceUser + "' service user here)",
                grantFix(node, gid, currentUser) + ", then log in again");
    }

    private String grantFix(Path node, int gid, String user) {
        if (gid == 0) {
            return "the node belongs to group root: give it a group with a udev rule, e.g. `echo 'KERNEL==\""
                    + node.getFileName() + "\", GROUP=\"render\", MODE=\"0660\"' | sudo tee /etc/udev/rules.d/"
                    + "99-rknpu.rules && sudo udevadm control --reload && sudo udevadm trigger`, and `sudo usermod"
                    + " -aG render " + user + "`";
        }
        return "`sudo usermod -aG " + accounts.groupName(gid) + " " + user + "`";
    }

    static boolean canReadWrite(Accounts.User user, int uid, int gid, int mode) {
        if (user.uid() == 0) {
            return true;
        }
        int bits;
        if (user.uid() == uid) {
            bits = (mode >> 6) & 7;
        } else if (user.groups().contains(gid)) {
            bits = (mode >> 3) & 7;
        } else {
            bits = mode & 7;
        }
        return (bits & 6) == 6;
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE,
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE};
        for (int i = 0; i < order.length; i++) {
            if ((mode & (1 << (8 - i))) != 0) {
                set.add(order[i]);
            }
        }
        return set;
    }

    /** The NPU and memory clocks (devfreq): governor and frequency, for information. */
    List<DoctorLine> clocks() {
        List<DoctorLine> checks = new ArrayList<>();
        try (DirectoryStream<Path> devfreq = Files.newDirectoryStream(roots.sys().resolve("class/devfreq"))) {
            List<Path> entries = new ArrayList<>();
            devfreq.forEach(entries::add);
            entries.sort(null);
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.contains("npu") && !name.contains("dmc")) {
                    continue;
                }
                String governor = read(entry.resolve("governor")).orElse("?");
                String now = read(entry.resolve("cur_freq")).map(NpuChecks::mhz).orElse("?");
                String max = read(entry.resolve("max_freq")).map(NpuChecks::mhz).orElse("?");
                checks.add(DoctorLine.info("clock", (name.contains("npu") ? "NPU" : "memory") + " " + name + ": governor "
                        + governor + ", now " + now + ", max " + max + " (pinning them is optional: docs/deploy.md)"));
            }
        } catch (IOException | SecurityException e) {
            // no devfreq: nothing to say
        }
        return checks;
    }

    private static Optional<String> read(Path file) {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    private static String mhz(String hz) {
        try {
            return (Long.parseLong(hz) / 1_000_000) + " MHz";
        } catch (NumberFormatException e) {
            return hz;
        }
    }
}
