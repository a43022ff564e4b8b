package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.util.LinkedHashMap;
import java.util.Map;

/** The struct layouts of one {@link LayoutGeneration}, named as in llama.h. */
record LlamaLayouts(LayoutGeneration generation, GroupLayout modelParams, GroupLayout contextParams,
                   GroupLayout batch, GroupLayout samplerChainParams, GroupLayout perfContext) {

    /** int32_t, uint32_t and C enums alike. */
    private static final MemoryLayout INT = JAVA_INT;
    private static final MemoryLayout SIZE_T = JAVA_LONG;

    static final GroupLayout BATCH = Structs.struct("llama_batch",
            INT.withName("n_tokens"), ADDRESS.withName("token"), ADDRESS.withName("embd"), ADDRESS.withName("pos"),
            ADDRESS.withName("n_seq_id"), ADDRESS.withName("seq_id"), ADDRESS.withName("logits"));

    static final GroupLayout SAMPLER_CHAIN_PARAMS = Structs.struct("llama_sampler_chain_params",
            JAVA_BOOLEAN.withName("no_perf"));

    /** The same in every generation: a candidate token for the samplers (id, logit, probability). */
    static final GroupLayout TOKEN_DATA = Structs.struct("llama_token_data",
            INT.withName("id"), JAVA_FLOAT.withName("logit"), JAVA_FLOAT.withName("p"));

    /** The same in every generation: the candidates a sampler narrows down and picks from. */
    static final GroupLayout TOKEN_DATA_ARRAY = Structs.struct("llama_token_data_array",
            ADDRESS.withName("data"), SIZE_T.withName("size"), JAVA_LONG.withName("selected"),
            JAVA_BOOLEAN.withName("sorted"));

    static LlamaLayouts of(LayoutGeneration generation) {
        return switch (generation) {
            case B4916 -> new LlamaLayouts(generation, modelParamsB4916(), contextParamsB4916(), BATCH,
                    SAMPLER_CHAIN_PARAMS, perf(false, false));
            case V0_5_0 -> new LlamaLayouts(generation, modelParamsV05(), contextParamsV05(false), BATCH,
                    SAMPLER_CHAIN_PARAMS, perf(true, false));
            case V0_7_0 -> new LlamaLayouts(generation, modelParamsV05(), contextParamsV05(true), BATCH,
                    SAMPLER_CHAIN_PARAMS, perf(true, true));
        };
    }

    Map<String, GroupLayout> all() {
        Map<String, GroupLayout> all = new LinkedHashMap<>();
        for (GroupLayout layout : new GroupLayout[] {modelParams, contextParams, batch, samplerChainParams, perfContext,
                TOKEN_DATA, TOKEN_DATA_ARRAY}) {
            all.put(layout.name().orElseThrow(), layout);
        }
        return all;
    }

    private static GroupLayout modelParamsB4916() {
        return Structs.struct("llama_model_params",
                ADDRESS.withName("devices"),
                INT.withName("n_gpu_layers"), INT.withName("split_mode"), INT.withName("main_gpu"),
                ADDRESS.withName("tensor_split"), ADDRESS.withName("progress_callback"),
                ADDRESS.withName("progress_callback_user_data"), ADDRESS.withName("kv_overrides"),
                JAVA_BOOLEAN.withName("vocab_only"), JAVA_BOOLEAN.withName("use_mmap"),
                JAVA_BOOLEAN.withName("use_mlock"), JAVA_BOOLEAN.withName("check_tensors"));
    }

    private static GroupLayout modelParamsV05() {
        return Structs.struct("llama_model_params",
                ADDRESS.withName("devices"), ADDRESS.withName("tensor_buft_overrides"),
                INT.withName("n_gpu_layers"), INT.withName("split_mode"), INT.withName("load_mode"),
                INT.withName("lazy_mode"), INT.withName("main_gpu"),
                ADDRESS.withName("tensor_split"), ADDRESS.withName("progress_callback"),
                ADDRESS.withName("progress_callback_user_data"), ADDRESS.withName("kv_overrides"),
                JAVA_BOOLEAN.withName("vocab_only"), JAVA_BOOLEAN.withName("check_tensors"),
                JAVA_BOOLEAN.withName("use_extra_bufts"), JAVA_BOOLEAN.withName("no_host"),
                JAVA_BOOLEAN.withName("no_alloc"), JAVA_BOOLEAN.withName("load_mtp"));
    }

    private static GroupLayout contextParamsB4916() {
        return Structs.struct("llama_context_params",
                INT.withName("n_ctx"), INT.withName("n_batch"), INT.withName("n_ubatch"), INT.withName("n_seq_max"),
                INT.withName("n_threads"), INT.withName("n_threads_batch"),
                INT.withName("rope_scaling_type"), INT.withName("pooling_type"), INT.withName("attention_type"),
                JAVA_FLOAT.withName("rope_freq_base"), JAVA_FLOAT.withName("rope_freq_scale"),
                JAVA_FLOAT.withName("yarn_ext_factor"), JAVA_FLOAT.withName("yarn_attn_factor"),
                JAVA_FLOAT.withName("yarn_beta_fast"), JAVA_FLOAT.withName("yarn_beta_slow"),
                INT.withName("yarn_orig_ctx"), JAVA_FLOAT.withName("defrag_thold"),
                ADDRESS.withName("cb_eval"), ADDRESS.withName("cb_eval_user_data"),
                INT.withName("type_k"), INT.withName("type_v"),
                JAVA_BOOLEAN.withName("logits_all"), JAVA_BOOLEAN.withName("embeddings"),
                JAVA_BOOLEAN.withName("offload_kqv"), JAVA_BOOLEAN.withName("flash_attn"),
                JAVA_BOOLEAN.withName("no_perf"),
                ADDRESS.withName("abort_callback"), ADDRESS.withName("abort_callback_data"));
    }

    private static GroupLayout contextParamsV05(boolean moeCacheSize) {
        MemoryLayout[] head = {
                INT.withName("n_ctx"), INT.withName("n_batch"), INT.withName("n_ubatch"), INT.withName("n_seq_max"),
                INT.withName("n_rs_seq"), INT.withName("n_outputs_max"), INT.withName("n_outputs_max_per_seq"),
                INT.withName("n_threads"), INT.withName("n_threads_batch"), INT.withName("ctx_type"),
                INT.withName("rope_scaling_type"), INT.withName("pooling_type"), INT.withName("attention_type"),
                INT.withName("flash_attn_type"),
                JAVA_FLOAT.withName("rope_freq_base"), JAVA_FLOAT.withName("rope_freq_scale"),
                JAVA_FLOAT.withName("yarn_ext_factor"), JAVA_FLOAT.withName("yarn_attn_factor"),
                JAVA_FLOAT.withName("yarn_beta_fast"), JAVA_FLOAT.withName("yarn_beta_slow"),
                INT.withName("yarn_orig_ctx"), JAVA_FLOAT.withName("defrag_thold"),
                ADDRESS.withName("cb_eval"), ADDRESS.withName("cb_eval_user_data"),
                INT.withName("type_k"), INT.withName("type_v")};
        MemoryLayout[] moe = moeCacheSize ? new MemoryLayout[] {SIZE_T.withName("moe_cache_size")} : new MemoryLayout[0];
        MemoryLayout[] tail = {
                ADDRESS.withName("abort_callback"), ADDRESS.withName("abort_callback_data"),
                JAVA_BOOLEAN.withName("embeddings"), JAVA_BOOLEAN.withName("offload_kqv"),
                JAVA_BOOLEAN.withName("no_perf"), JAVA_BOOLEAN.withName("op_offload"),
                JAVA_BOOLEAN.withName("swa_full"), JAVA_BOOLEAN.withName("kv_unified"),
                ADDRESS.withName("samplers"), SIZE_T.withName("n_samplers"), ADDRESS.withName("ctx_other")};
        MemoryLayout[] all = new MemoryLayout[head.length + moe.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(moe, 0, all, head.length, moe.length);
        System.arraycopy(tail, 0, all, head.length + moe.length, tail.length);
        return Structs.struct("llama_context_params", all);
    }

    private static GroupLayout perf(boolean reused, boolean reallocs) {
        var members = new java.util.ArrayList<MemoryLayout>(java.util.List.of(
                JAVA_DOUBLE.withName("t_start_ms"), JAVA_DOUBLE.withName("t_load_ms"),
                JAVA_DOUBLE.withName("t_p_eval_ms"), JAVA_DOUBLE.withName("t_eval_ms"),
                INT.withName("n_p_eval"), INT.withName("n_eval")));
        if (reused) {
            members.add(INT.withName("n_reused"));
        }
        if (reallocs) {
            members.add(INT.withName("n_reallocs_same"));
            members.add(INT.withName("n_reallocs_diff"));
        }
        return Structs.struct("llama_perf_context_data", members.toArray(MemoryLayout[]::new));
    }
}
