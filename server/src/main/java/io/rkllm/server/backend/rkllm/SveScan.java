package io.rkllm.server.backend.rkllm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * Counts the SVE instructions in the code of an arm64 shared library, as {@code objdump -d | grep z-registers}
 * would, without objdump: the executable sections of the ELF file, read as 32-bit A64 words, of which those in
 * the SVE encoding space (bits 28-25 = 0010) are counted. RK3588 and RK3576 have no SVE, so such code must only
 * run after the library checked the CPU (rknn-llm#518 reports runtime 1.3.0 dying with "Illegal instruction" on
 * RK3588, which others run without trouble). Words of data placed in code would count too: only a count well
 * above a few is evidence of SVE code.
 */
final class SveScan {
    private static final int EM_AARCH64 = 183;
    private static final long SHF_EXECINSTR = 0x4;
    private static final int SHT_NOBITS = 8;
    /** Larger than any librkllmrt.so release (about 7 MB): not read. */
    private static final long MAX_BYTES = 256L << 20;

    private SveScan() {
    }

    /** The count for an arm64 ELF64 little-endian file; empty for any other file, or one that cannot be read. */
    static OptionalInt count(Path library) {
        try {
            if (Files.size(library) > MAX_BYTES) {
                return OptionalInt.empty();
            }
            return count(ByteBuffer.wrap(Files.readAllBytes(library)).order(ByteOrder.LITTLE_ENDIAN));
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    static OptionalInt count(ByteBuffer elf) {
        if (elf.limit() < 64 || elf.getInt(0) != 0x464c457f || elf.get(4) != 2 || elf.get(5) != 1
                || Short.toUnsignedInt(elf.getShort(0x12)) != EM_AARCH64) {
            return OptionalInt.empty();
        }
        long sectionTable = elf.getLong(0x28);
        int entrySize = Short.toUnsignedInt(elf.getShort(0x3A));
        int sections = Short.toUnsignedInt(elf.getShort(0x3C));
        int count = 0;
        for (int i = 0; i < sections; i++) {
            long at = sectionTable + (long) i * entrySize;
            if (at < 0 || at + 64 > elf.limit()) {
                return OptionalInt.empty();
            }
            int header = (int) at;
            long flags = elf.getLong(header + 8);
            if ((flags & SHF_EXECINSTR) == 0 || elf.getInt(header + 4) == SHT_NOBITS) {
                continue;
            }
            long offset = elf.getLong(header + 24);
            long size = elf.getLong(header + 32);
            if (offset < 0 || size < 0 || offset + size > elf.limit()) {
                return OptionalInt.empty();
            }
            for (long word = offset; word + 4 <= offset + size; word += 4) {
                if (((elf.getInt((int) word) >>> 25) & 0xF) == 0b0010) {
                    count++;
                }
            }
        }
        return OptionalInt.of(count);
    }
}
