package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/** Builds RKLLMInput and RKLLMInferParam for one run in the run's arena. */
final class RunInputCodec {
    static final int INPUT_PROMPT = 0;
    static final int INPUT_MULTIMODAL = 3;
    static final int MODE_GENERATE = 0;
    static final int MODE_LAST_HIDDEN_LAYER = 1;

    private final AbiLayouts layouts;
    private final ParamCodec params;

    RunInputCodec(AbiLayouts layouts) {
        this.layouts = layouts;
        this.params = new ParamCodec(layouts);
    }

    MemorySegment input(Arena arena, RunInput run) {
        GroupLayout l = layouts.input();
        MemorySegment input = arena.allocate(l);
        input.set(ADDRESS, Structs.offset(l, "role"), arena.allocateFrom(run.role()));
        input.set(JAVA_BOOLEAN, Structs.offset(l, "enable_thinking"), run.enableThinking());
        input.set(JAVA_INT, Structs.offset(l, "input_type"), INPUT_PROMPT);
        input.set(ADDRESS, Structs.offset(l, "prompt_input"), arena.allocateFrom(run.prompt()));
        return input;
    }

    /**
     * An RKLLMInput of type MULTIMODAL: the run's prompt (one {@code <image>} per image) and the images'
     * floats copied, image after image, into the arena. The tags: on ABI 1.3 the run's or else the
     * model's, on ABI 1.2 the model's (given at init; the runtime has no others).
     */
    MemorySegment multimodalInput(Arena arena, RunInput run, ImageInput images, Optional<ImageTags> modelTags) {
        GroupLayout l = layouts.input();
        MemorySegment input = arena.allocate(l);
        input.set(ADDRESS, Structs.offset(l, "role"), arena.allocateFrom(run.role()));
        input.set(JAVA_BOOLEAN, Structs.offset(l, "enable_thinking"), run.enableThinking());
        input.set(JAVA_INT, Structs.offset(l, "input_type"), INPUT_MULTIMODAL);
        GroupLayout m = layouts.multiModalInput();
        long base = Structs.offset(l, "multimodal_input");
        input.set(ADDRESS, base + Structs.offset(m, "prompt"), arena.allocateFrom(run.prompt()));

        boolean perRequestTags = Structs.find(m, "image").isPresent();
        GroupLayout image = perRequestTags ? (GroupLayout) m.select(PathElement.groupElement("image")) : m;
        long at = base + (perRequestTags ? Structs.offset(m, "image") : 0);
        MemorySegment floats = arena.allocate(JAVA_FLOAT, images.totalFloats());
        long offset = 0;
        for (float[] embedding : images.embeddings()) {
            MemorySegment.copy(embedding, 0, floats, JAVA_FLOAT, offset, embedding.length);
            offset += embedding.length * JAVA_FLOAT.byteSize();
        }
        input.set(ADDRESS, at + Structs.offset(image, "image_embed"), floats);
        input.set(JAVA_LONG, at + Structs.offset(image, "n_image_tokens"), images.imageTokens());
        input.set(JAVA_LONG, at + Structs.offset(image, "n_image"), images.embeddings().size());
        input.set(JAVA_LONG, at + Structs.offset(image, "image_width"), images.imageWidth());
        input.set(JAVA_LONG, at + Structs.offset(image, "image_height"), images.imageHeight());
        if (perRequestTags) {
            ImageTags tags = images.tags().or(() -> modelTags).orElseThrow(() -> new IllegalStateException(
                    "no image tags: set them in ModelParams.imageTags or in the run's ImageInput"));
            input.set(ADDRESS, at + Structs.offset(image, "image_start"), arena.allocateFrom(tags.start()));
            input.set(ADDRESS, at + Structs.offset(image, "image_end"), arena.allocateFrom(tags.end()));
            input.set(ADDRESS, at + Structs.offset(image, "image_content"), arena.allocateFrom(tags.content()));
        } else if (modelTags.isEmpty()) {
            // the runtime would dereference the NULL img_* of RKLLMParam
            throw new IllegalStateException("ABI " + layouts.abi() + " takes the image tags at init: load the model"
                    + " with ModelParams.imageTags to run images");
        } else if (images.tags().isPresent() && !images.tags().equals(modelTags)) {
            throw new UnsupportedOperationException("ABI " + layouts.abi() + " fixes the image tags at init ("
                    + modelTags.get() + "): per-run tags need runtime 1.3");
        }
        return input;
    }

    MemorySegment inferParam(Arena arena, RunInput run, int mode) {
        GroupLayout l = layouts.inferParam();
        MemorySegment infer = arena.allocate(l);
        infer.set(JAVA_INT, Structs.offset(l, "mode"), mode);
        infer.set(JAVA_INT, Structs.offset(l, "keep_history"), run.keepHistory() ? 1 : 0);
        if (run.loraName().isPresent()) {
            MemorySegment lora = arena.allocate(AbiLayouts.LORA_PARAM);
            lora.set(ADDRESS, Structs.offset(AbiLayouts.LORA_PARAM, "lora_adapter_name"),
                    arena.allocateFrom(run.loraName().get()));
            infer.set(ADDRESS, Structs.offset(l, "lora_params"), lora);
        }
        if (run.savePromptCache().isPresent()) {
            GroupLayout c = AbiLayouts.PROMPT_CACHE_PARAM;
            MemorySegment cache = arena.allocate(c);
            cache.set(JAVA_INT, Structs.offset(c, "save_prompt_cache"), 1);
            cache.set(ADDRESS, Structs.offset(c, "prompt_cache_path"),
                    arena.allocateFrom(run.savePromptCache().get().toString()));
            infer.set(ADDRESS, Structs.offset(l, "prompt_cache_params"), cache);
        }
        if (layouts.abi().perRunSampling()) {
            if (run.sampling().isPresent()) {
                infer.set(ADDRESS, Structs.offset(l, "sampling_params"), params.sampling(arena, run.sampling().get()));
            }
            infer.set(JAVA_INT, Structs.offset(l, "max_new_tokens"), Math.max(0, run.maxNewTokens()));
        } else if (run.sampling().isPresent() || run.maxNewTokens() > 0) {
            throw new UnsupportedOperationException("ABI " + layouts.abi()
                    + " fixes sampling and max_new_tokens at init: per-run values need runtime 1.3");
        }
        return infer;
    }
}
