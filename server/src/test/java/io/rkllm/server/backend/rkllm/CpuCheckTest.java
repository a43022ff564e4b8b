package io.rkllm.server.backend.rkllm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.DoctorLine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CPU's features (a fake /proc/cpuinfo) against the SVE code of a library (a small arm64 ELF file). */
public class CpuCheckTest {
    /** An RK3588's /proc/cpuinfo, shortened: four Cortex-A55, four Cortex-A76, no SVE. */
    public static final String RK3588 = core(0, "0xd05") + core(1, "0xd05") + core(2, "0xd05") + core(3, "0xd05")
            + core(4, "0xd0b") + core(5, "0xd0b") + core(6, "0xd0b") + core(7, "0xd0b");

    @TempDir
    Path dir;

    private static String core(int n, String part) {
        return "processor\t: " + n + "\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32"
                + " atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\n"
                + "CPU architecture: 8\nCPU variant\t: 0x2\nCPU part\t: " + part + "\nCPU revision\t: 0\n\n";
    }

    /** An arm64 ELF64 file whose one executable section holds {@code sve} SVE words and 100 others. */
    static byte[] elf(int sve) {
        int code = 64;
        int words = sve + 100;
        int sections = code + words * 4;
        ByteBuffer b = ByteBuffer.allocate(sections + 2 * 64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, 0x464c457f).put(4, (byte) 2).put(5, (byte) 1).put(6, (byte) 1);
        b.putShort(0x10, (short) 3).putShort(0x12, (short) 183).putLong(0x28, sections)
                .putShort(0x3A, (short) 64).putShort(0x3C, (short) 2);
        for (int i = 0; i < words; i++) {
            // ld1d {z0.d}, p0/z, [x0] (0xa5e0a000) is SVE; add x0, x0, #1 (0x91000400) is not
            b.putInt(code + i * 4, i < sve ? 0xa5e0a000 : 0x91000400);
        }
        int text = sections + 64; // section 0 is the null section
        b.putInt(text + 4, 1).putLong(text + 8, 0x6).putLong(text + 24, code).putLong(text + 32, words * 4L);
        return b.array();
    }

    @Test
    void anRk3588IsNamedWithItsFeatures() throws IOException {
        Path cpuinfo = Files.writeString(dir.resolve("cpuinfo"), RK3588);
        DoctorLine c = CpuCheck.check(cpuinfo, Optional.empty(), Optional.of("1.3.0"));
        assertThat(c.verdict()).isEqualTo(DoctorLine.Verdict.OK);
        assertThat(c.message()).contains("4x Cortex-A55 + 4x Cortex-A76", "NEON yes", "dot product yes", "SVE no");
    }

    @Test
    void sveCodeInTheLibraryIsAWarningForRuntime130OnACpuWithoutSve() throws IOException {
        Path cpuinfo = Files.writeString(dir.resolve("cpuinfo"), RK3588);
        Path library = Files.write(dir.resolve("librkllmrt.so"), elf(40));
        assertThat(SveScan.count(library)).hasValue(40);

        DoctorLine on130 = CpuCheck.check(cpuinfo, Optional.of(library), Optional.of("1.3.0"));
        assertThat(on130.verdict()).isEqualTo(DoctorLine.Verdict.WARN);
        assertThat(on130.message()).contains("40 SVE instructions", "rknn-llm#518");
        assertThat(on130.fix().orElseThrow()).contains("1.2.3");
        assertThat(CpuCheck.check(cpuinfo, Optional.of(library), Optional.of("1.2.3")).verdict())
                .isEqualTo(DoctorLine.Verdict.INFO);

        Path withSve = Files.writeString(dir.resolve("sve"), RK3588.replace("asimddp", "asimddp sve"));
        assertThat(CpuCheck.check(withSve, Optional.of(library), Optional.of("1.3.0")).verdict())
                .isEqualTo(DoctorLine.Verdict.OK);
        Path clean = Files.write(dir.resolve("clean.so"), elf(2));
        DoctorLine few = CpuCheck.check(cpuinfo, Optional.of(clean), Optional.of("1.3.0"));
        assertThat(few.verdict()).isEqualTo(DoctorLine.Verdict.OK);
        assertThat(few.message()).contains("the runtime has no SVE code");
    }

    @Test
    void otherMachinesAndFilesAreNotJudged() throws IOException {
        Path x86 = Files.writeString(dir.resolve("x86"), "processor\t: 0\nflags\t\t: fpu vme sse sse2 avx2\n");
        assertThat(CpuCheck.check(x86, Optional.empty(), Optional.empty()).verdict())
                .isEqualTo(DoctorLine.Verdict.INFO);
        assertThat(CpuCheck.check(dir.resolve("missing"), Optional.empty(), Optional.empty()).message())
                .contains("cannot read");
        Path text = Files.writeString(dir.resolve("not-elf.so"), "not an ELF file");
        assertThat(SveScan.count(text)).isEmpty();
        byte[] x86Elf = elf(40);
        x86Elf[0x12] = 62; // EM_X86_64
        assertThat(SveScan.count(Files.write(dir.resolve("x86.so"), x86Elf))).isEmpty();
    }
}
