package io.rkllm.llama.gguf;

import java.util.Map;
import java.util.Optional;

/** Names of llama.cpp's {@code llama_ftype} values, as {@code general.file_type} stores them. */
final class FileType {
    private static final Map<Long, String> NAMES = Map.ofEntries(
            Map.entry(0L, "F32"), Map.entry(1L, "F16"), Map.entry(2L, "Q4_0"), Map.entry(3L, "Q4_1"),
            Map.entry(7L, "Q8_0"), Map.entry(8L, "Q5_0"), Map.entry(9L, "Q5_1"), Map.entry(10L, "Q2_K"),
            Map.entry(11L, "Q3_K_S"), Map.entry(12L, "Q3_K_M"), Map.entry(13L, "Q3_K_L"), Map.entry(14L, "Q4_K_S"),
            Map.entry(15L, "Q4_K_M"), Map.entry(16L, "Q5_K_S"), Map.entry(17L, "Q5_K_M"), Map.entry(18L, "Q6_K"),
            Map.entry(19L, "IQ2_XXS"), Map.entry(20L, "IQ2_XS"), Map.entry(21L, "Q2_K_S"), Map.entry(22L, "IQ3_XS"),
            Map.entry(23L, "IQ3_XXS"), Map.entry(24L, "IQ1_S"), Map.entry(25L, "IQ4_NL"), Map.entry(26L, "IQ3_S"),
            Map.entry(27L, "IQ3_M"), Map.entry(28L, "IQ2_S"), Map.entry(29L, "IQ2_M"), Map.entry(30L, "IQ4_XS"),
            Map.entry(31L, "IQ1_M"), Map.entry(32L, "BF16"), Map.entry(36L, "TQ1_0"), Map.entry(37L, "TQ2_0"),
            Map.entry(38L, "MXFP4_MOE"));

    private FileType() {
    }

    static Optional<String> name(long fileType) {
        return Optional.ofNullable(NAMES.get(fileType));
    }
}
