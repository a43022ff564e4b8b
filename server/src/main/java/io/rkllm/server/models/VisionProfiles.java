package io.rkllm.server.models;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Defaults for vision-language model families, recognised from the folder and file names (of the {@code .rkllm}
 * and the {@code .rknn}), first match wins. Nothing in the model files says which image tags the language model
 * was trained with, so a family without known tags needs them in its sidecar. Sources:
 * shared/docs/vision-embeddings-research.md, A.5 and A.6 (rknn-llm's README and demo, peers' configurations).
 */
final class VisionProfiles {
    static final String QWEN_START = "<|vision_start|>";
    static final String QWEN_END = "<|vision_end|>";
    static final String QWEN_CONTENT = "<|image_pad|>";
    /** Rockchip's multimodal demo initialises the language model in domain 1 beside an encoder. */
    static final int DEFAULT_BASE_DOMAIN = 1;

    /**
     * One family's defaults.
     *
     * @param tags start, end and content tags; empty when not published
     * @param maxImages Qwen3-VL mixes up several pictures on runtime 1.2.3 (rknn-llm#493): one by default
     */
    record Profile(String name, Pattern match, Optional<List<String>> tags, int imageSize, int imageTokens,
                   int maxImages) {
        boolean matches(String names) {
            return match.matcher(names).find();
        }
    }

    static final List<Profile> TABLE = List.of(
            new Profile("qwen3-vl", Pattern.compile("qwen[-_. ]?3[-_. ]?vl"),
                    Optional.of(List.of(QWEN_START, QWEN_END, QWEN_CONTENT)), 448, 196, 1),
            new Profile("qwen2-vl", Pattern.compile("qwen[-_. ]?2(?:[._]5)?[-_. ]?vl"),
                    Optional.of(List.of(QWEN_START, QWEN_END, QWEN_CONTENT)), 392, 196, 4),
            new Profile("qwen3.5", Pattern.compile("qwen[-_. ]?3[._]5"),
                    Optional.of(List.of(QWEN_START, QWEN_END, QWEN_CONTENT)), 448, 196, 1),
            new Profile("internvl", Pattern.compile("internvl"),
                    Optional.of(List.of("<img>", "</img>", "<IMG_CONTEXT>")), 448, 256, 4),
            new Profile("deepseek-ocr", Pattern.compile("deepseek[-_. ]?ocr"),
                    Optional.of(List.of("", "", "<｜▁pad▁｜>")), 448, 256, 1),
            // published tags disagree (<unk> or slice_placeholder as content): set them in the sidecar
            new Profile("minicpm-v", Pattern.compile("minicpm[-_. ]?v"), Optional.empty(), 448, 64, 1),
            new Profile("smolvlm", Pattern.compile("smolvlm"), Optional.empty(), 512, 64, 1));

    static final Profile GENERIC = new Profile("generic", Pattern.compile("(?!)"), Optional.empty(), 448, 196, 1);

    private VisionProfiles() {
    }

    static Profile detect(String... names) {
        String joined = String.join(" ", names).toLowerCase(Locale.ROOT);
        return TABLE.stream().filter(p -> p.matches(joined)).findFirst().orElse(GENERIC);
    }
}
