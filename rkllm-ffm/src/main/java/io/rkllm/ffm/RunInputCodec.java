package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;

/** Builds RKLLMInput and RKLLMInferParam for one run in the run's arena. */
final class RunInputCodec {
    static final int INPUT_PROMPT = 0;
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
