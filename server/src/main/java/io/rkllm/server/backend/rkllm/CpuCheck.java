package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.DoctorLine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * The CPU against what the runtime library needs, as far as either can be read: the cores and the feature flags
 * of /proc/cpuinfo (the flags every core has), and the SVE instructions in the library's code ({@link SveScan}).
 * Rockchip documents no CPU requirement; RK3588 (Cortex-A76/A55) and RK3576 (A72/A53) have NEON and no SVE. The
 * one reported problem: runtime 1.3.0 dying with "Illegal instruction" on RK3588 (rknn-llm#518, said to use SVE
 * without checking; others run it fine), so SVE code in a library on a CPU without SVE is a warning for 1.3.0
 * only and a note otherwise.
 */
final class CpuCheck {
    /** Fewer SVE-like words than this are taken for data in code, not SVE code. */
    static final int SVE_EVIDENCE = 16;
    private static final Map<String, String> PARTS = Map.ofEntries(Map.entry("0xd03", "Cortex-A53"),
            Map.entry("0xd04", "Cortex-A35"), Map.entry("0xd05", "Cortex-A55"), Map.entry("0xd07", "Cortex-A57"),
            Map.entry("0xd08", "Cortex-A72"), Map.entry("0xd09", "Cortex-A73"), Map.entry("0xd0a", "Cortex-A75"),
            Map.entry("0xd0b", "Cortex-A76"), Map.entry("0xd0d", "Cortex-A77"), Map.entry("0xd41", "Cortex-A78"),
            Map.entry("0xd44", "Cortex-X1"), Map.entry("0xd46", "Cortex-A510"), Map.entry("0xd47", "Cortex-A710"),
            Map.entry("0xd48", "Cortex-X2"), Map.entry("0xd49", "Neoverse-N2"), Map.entry("0xd4d", "Cortex-A715"));

    private CpuCheck() {
    }

    /**
     * @param cpuinfo /proc/cpuinfo of the machine
     * @param library the runtime library, when one was found (not the simulated one)
     * @param runtimeVersion its release, when identified
     */
    static DoctorLine check(Path cpuinfo, Optional<Path> library, Optional<String> runtimeVersion) {
        String text;
        try {
            text = Files.readString(cpuinfo);
        } catch (IOException | RuntimeException e) {
            return DoctorLine.info("cpu", "cannot read " + cpuinfo + ": the CPU's features are not checked");
        }
        Set<String> features = null;
        Map<String, Integer> cores = new TreeMap<>();
        for (String line : text.lines().toList()) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String key = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            if (key.equals("Features")) {
                Set<String> these = new LinkedHashSet<>(List.of(value.split("\\s+")));
                if (features == null) {
                    features = these;
                } else {
                    features.retainAll(these);
                }
            } else if (key.equals("CPU part")) {
                cores.merge(PARTS.getOrDefault(value.toLowerCase(Locale.ROOT), "part " + value), 1, Integer::sum);
            }
        }
        if (features == null) {
            return DoctorLine.info("cpu", "not an arm64 CPU (no Features in " + cpuinfo + "): the runtime needs an arm64"
                    + " board; --simulate runs anywhere");
        }
        List<String> parts = new ArrayList<>();
        cores.forEach((name, n) -> parts.add(n + "x " + name));
        boolean sve = features.contains("sve");
        String found = (parts.isEmpty() ? "arm64" : String.join(" + ", parts)) + "; NEON "
                + (features.contains("asimd") ? "yes" : "NO") + ", dot product "
                + (features.contains("asimddp") ? "yes" : "no") + ", fp16 " + (features.contains("fphp") ? "yes" : "no")
                + ", SVE " + (sve ? "yes" : "no");
        if (!features.contains("asimd")) {
            return DoctorLine.fail("cpu", found, "the runtime is built for arm64 with NEON (asimd): use an RK3588 or"
                    + " RK3576 board");
        }
        OptionalInt sveWords = library.map(SveScan::count).orElse(OptionalInt.empty());
        if (sve || sveWords.isEmpty() || sveWords.getAsInt() < SVE_EVIDENCE) {
            return DoctorLine.ok("cpu", found + (sveWords.isPresent() ? "; the runtime has no SVE code" + (sve ? " it"
                    + " could not run" : "") : ""));
        }
        String withSve = found + "; the runtime library has " + sveWords.getAsInt() + " SVE instructions, which this"
                + " CPU cannot run: it must check the CPU before using them";
        if (runtimeVersion.filter("1.3.0"::equals).isPresent()) {
            return DoctorLine.warn("cpu", withSve + " (runtime 1.3.0 is reported to die with \"Illegal instruction\" on"
                    + " RK3588, rknn-llm#518; others run it)", "if the server dies with Illegal instruction"
                    + " (SIGILL), install runtime 1.2.3, the known-good release (docs/runtime-abi.md)");
        }
        return DoctorLine.info("cpu", withSve + " (runtime 1.2.3 is reported to)");
    }
}
