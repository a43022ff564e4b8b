package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The C structs of one RKLLM ABI as FFM layouts, field names exactly as in the C header, padding
 * explicit. Offsets follow the ABI table; {@code LayoutTableTest} checks every one against the C
 * compiler's view of the simulated runtime's header.
 */
record AbiLayouts(Abi abi, StructLayout param, StructLayout input, StructLayout multiModalInput,
                  StructLayout inferParam, Optional<StructLayout> samplingParam, Optional<StructLayout> callback,
                  Map<String, GroupLayout> all) {

    static final StructLayout EXTEND_PARAM = MemoryLayout.structLayout(
            JAVA_INT.withName("base_domain_id"),
            JAVA_BYTE.withName("embed_flash"),
            JAVA_BYTE.withName("enabled_cpus_num"),
            MemoryLayout.paddingLayout(2),
            JAVA_INT.withName("enabled_cpus_mask"),
            JAVA_BYTE.withName("n_batch"),
            JAVA_BYTE.withName("use_cross_attn"),
            MemoryLayout.sequenceLayout(104, JAVA_BYTE).withName("reserved"),
            MemoryLayout.paddingLayout(2)).withName("RKLLMExtendParam");

    static final StructLayout LORA_ADAPTER = MemoryLayout.structLayout(
            ADDRESS.withName("lora_adapter_path"),
            ADDRESS.withName("lora_adapter_name"),
            JAVA_FLOAT.withName("scale"),
            MemoryLayout.paddingLayout(4)).withName("RKLLMLoraAdapter");

    static final StructLayout EMBED_INPUT = MemoryLayout.structLayout(
            ADDRESS.withName("embed"),
            JAVA_LONG.withName("n_tokens")).withName("RKLLMEmbedInput");

    static final StructLayout TOKEN_INPUT = MemoryLayout.structLayout(
            ADDRESS.withName("input_ids"),
            JAVA_LONG.withName("n_tokens")).withName("RKLLMTokenInput");

    static final StructLayout LORA_PARAM = MemoryLayout.structLayout(
            ADDRESS.withName("lora_adapter_name")).withName("RKLLMLoraParam");

    static final StructLayout PROMPT_CACHE_PARAM = MemoryLayout.structLayout(
            JAVA_INT.withName("save_prompt_cache"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("prompt_cache_path")).withName("RKLLMPromptCacheParam");

    static final StructLayout LAST_HIDDEN_LAYER = MemoryLayout.structLayout(
            ADDRESS.withName("hidden_states"),
            JAVA_INT.withName("embd_size"),
            JAVA_INT.withName("num_tokens")).withName("RKLLMResultLastHiddenLayer");

    static final StructLayout LOGITS = MemoryLayout.structLayout(
            ADDRESS.withName("logits"),
            JAVA_INT.withName("vocab_size"),
            JAVA_INT.withName("num_tokens")).withName("RKLLMResultLogits");

    static final StructLayout PERF_STAT = MemoryLayout.structLayout(
            JAVA_FLOAT.withName("prefill_time_ms"),
            JAVA_INT.withName("prefill_tokens"),
            JAVA_FLOAT.withName("generate_time_ms"),
            JAVA_INT.withName("generate_tokens"),
            JAVA_FLOAT.withName("memory_usage_mb")).withName("RKLLMPerfStat");

    static final StructLayout RESULT = MemoryLayout.structLayout(
            ADDRESS.withName("text"),
            JAVA_INT.withName("token_id"),
            MemoryLayout.paddingLayout(4),
            LAST_HIDDEN_LAYER.withName("last_hidden_layer"),
            LOGITS.withName("logits"),
            PERF_STAT.withName("perf"),
            MemoryLayout.paddingLayout(4)).withName("RKLLMResult");

    static final StructLayout CROSS_ATTN_PARAM = MemoryLayout.structLayout(
            ADDRESS.withName("encoder_k_cache"),
            ADDRESS.withName("encoder_v_cache"),
            ADDRESS.withName("encoder_mask"),
            ADDRESS.withName("encoder_pos"),
            JAVA_INT.withName("num_tokens"),
            MemoryLayout.paddingLayout(4)).withName("RKLLMCrossAttnParam");

    /** The layouts of the given ABI. */
    static AbiLayouts of(Abi abi) {
        return abi == Abi.V1_2 ? v12() : v13();
    }

    private static AbiLayouts v12() {
        StructLayout param = MemoryLayout.structLayout(
                ADDRESS.withName("model_path"),
                JAVA_INT.withName("max_context_len"),
                JAVA_INT.withName("max_new_tokens"),
                JAVA_INT.withName("top_k"),
                JAVA_INT.withName("n_keep"),
                JAVA_FLOAT.withName("top_p"),
                JAVA_FLOAT.withName("temperature"),
                JAVA_FLOAT.withName("repeat_penalty"),
                JAVA_FLOAT.withName("frequency_penalty"),
                JAVA_FLOAT.withName("presence_penalty"),
                JAVA_INT.withName("mirostat"),
                JAVA_FLOAT.withName("mirostat_tau"),
                JAVA_FLOAT.withName("mirostat_eta"),
                JAVA_BOOLEAN.withName("skip_special_token"),
                JAVA_BOOLEAN.withName("is_async"),
                MemoryLayout.paddingLayout(6),
                ADDRESS.withName("img_start"),
                ADDRESS.withName("img_end"),
                ADDRESS.withName("img_content"),
                EXTEND_PARAM.withName("extend_param")).withName("RKLLMParam");
        StructLayout multiModal = MemoryLayout.structLayout(
                ADDRESS.withName("prompt"),
                ADDRESS.withName("image_embed"),
                JAVA_LONG.withName("n_image_tokens"),
                JAVA_LONG.withName("n_image"),
                JAVA_LONG.withName("image_width"),
                JAVA_LONG.withName("image_height")).withName("RKLLMMultiModalInput");
        StructLayout inferParam = MemoryLayout.structLayout(
                JAVA_INT.withName("mode"),
                MemoryLayout.paddingLayout(4),
                ADDRESS.withName("lora_params"),
                ADDRESS.withName("prompt_cache_params"),
                JAVA_INT.withName("keep_history"),
                MemoryLayout.paddingLayout(4)).withName("RKLLMInferParam");
        StructLayout input = input(multiModal);
        return new AbiLayouts(Abi.V1_2, param, input, multiModal, inferParam, Optional.empty(), Optional.empty(),
                index(param, input, multiModal, inferParam));
    }

    private static AbiLayouts v13() {
        StructLayout param = MemoryLayout.structLayout(
                ADDRESS.withName("model_path"),
                JAVA_INT.withName("max_context_len"),
                JAVA_INT.withName("max_new_tokens"),
                JAVA_INT.withName("top_k"),
                JAVA_INT.withName("n_keep"),
                JAVA_FLOAT.withName("top_p"),
                JAVA_FLOAT.withName("temperature"),
                JAVA_FLOAT.withName("repeat_penalty"),
                JAVA_FLOAT.withName("frequency_penalty"),
                JAVA_FLOAT.withName("presence_penalty"),
                JAVA_INT.withName("mirostat"),
                JAVA_FLOAT.withName("mirostat_tau"),
                JAVA_FLOAT.withName("mirostat_eta"),
                JAVA_BOOLEAN.withName("skip_special_token"),
                JAVA_BOOLEAN.withName("ignore_eos_token"),
                JAVA_BOOLEAN.withName("is_async"),
                MemoryLayout.paddingLayout(1),
                EXTEND_PARAM.withName("extend_param"),
                MemoryLayout.paddingLayout(4)).withName("RKLLMParam");
        StructLayout image = MemoryLayout.structLayout(
                ADDRESS.withName("image_embed"),
                JAVA_LONG.withName("n_image_tokens"),
                JAVA_LONG.withName("n_image"),
                ADDRESS.withName("image_start"),
                ADDRESS.withName("image_end"),
                ADDRESS.withName("image_content"),
                JAVA_LONG.withName("image_width"),
                JAVA_LONG.withName("image_height")).withName("RKLLMImageInput");
        StructLayout video = MemoryLayout.structLayout(
                ADDRESS.withName("video_embed"),
                JAVA_LONG.withName("n_frame_tokens"),
                JAVA_LONG.withName("n_frame_per_video"),
                JAVA_LONG.withName("n_video"),
                ADDRESS.withName("video_start"),
                ADDRESS.withName("video_end"),
                ADDRESS.withName("video_content"),
                JAVA_LONG.withName("frame_width"),
                JAVA_LONG.withName("frame_height")).withName("RKLLMVideoInput");
        StructLayout multiModal = MemoryLayout.structLayout(
                ADDRESS.withName("prompt"),
                image.withName("image"),
                video.withName("video")).withName("RKLLMMultiModalInput");
        StructLayout sampling = MemoryLayout.structLayout(
                JAVA_INT.withName("top_k"),
                JAVA_FLOAT.withName("top_p"),
                JAVA_FLOAT.withName("temperature"),
                JAVA_FLOAT.withName("repeat_penalty"),
                JAVA_FLOAT.withName("frequency_penalty"),
                JAVA_FLOAT.withName("presence_penalty"),
                JAVA_INT.withName("mirostat"),
                JAVA_FLOAT.withName("mirostat_tau"),
                JAVA_FLOAT.withName("mirostat_eta")).withName("RKLLMSamplingParam");
        StructLayout inferParam = MemoryLayout.structLayout(
                JAVA_INT.withName("mode"),
                MemoryLayout.paddingLayout(4),
                ADDRESS.withName("lora_params"),
                ADDRESS.withName("prompt_cache_params"),
                ADDRESS.withName("sampling_params"),
                JAVA_INT.withName("keep_history"),
                JAVA_INT.withName("max_new_tokens")).withName("RKLLMInferParam");
        StructLayout callback = MemoryLayout.structLayout(
                ADDRESS.withName("result_callback"),
                ADDRESS.withName("result_userdata"),
                ADDRESS.withName("tokenizer_callback"),
                ADDRESS.withName("tokenizer_userdata"),
                ADDRESS.withName("embed_callback"),
                ADDRESS.withName("embed_userdata")).withName("RKLLMCallback");
        StructLayout input = input(multiModal);
        Map<String, GroupLayout> all = index(param, input, multiModal, inferParam, sampling, callback, image, video);
        return new AbiLayouts(Abi.V1_3, param, input, multiModal, inferParam, Optional.of(sampling),
                Optional.of(callback), all);
    }

    private static StructLayout input(StructLayout multiModal) {
        UnionLayout union = MemoryLayout.unionLayout(
                ADDRESS.withName("prompt_input"),
                EMBED_INPUT.withName("embed_input"),
                TOKEN_INPUT.withName("token_input"),
                multiModal.withName("multimodal_input"));
        return MemoryLayout.structLayout(
                ADDRESS.withName("role"),
                JAVA_BOOLEAN.withName("enable_thinking"),
                MemoryLayout.paddingLayout(3),
                JAVA_INT.withName("input_type"),
                union).withName("RKLLMInput");
    }

    private static Map<String, GroupLayout> index(GroupLayout... specific) {
        Map<String, GroupLayout> all = new LinkedHashMap<>();
        for (GroupLayout layout : new GroupLayout[] {EXTEND_PARAM, LORA_ADAPTER, EMBED_INPUT, TOKEN_INPUT,
                LORA_PARAM, PROMPT_CACHE_PARAM, LAST_HIDDEN_LAYER, LOGITS, PERF_STAT, RESULT, CROSS_ATTN_PARAM}) {
            all.put(layout.name().orElseThrow(), layout);
        }
        for (GroupLayout layout : specific) {
            all.put(layout.name().orElseThrow(), layout);
        }
        return Map.copyOf(all);
    }
}
