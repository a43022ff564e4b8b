/*
 * Prints the offset of every field and the size of every llama.h struct the binding passes to or reads
 * from libllama, one "struct.field offset" / "struct.sizeof size" line each, for the header it is
 * compiled against. The binding's LayoutTableTest compares the Java layouts (LlamaLayouts) with the
 * checked-in output, so that the Java side and the C compiler agree on every byte.
 *
 * llama.h is not part of this repository: compile against the header of the build a layout generation
 * describes, with -DLAYOUT_<GENERATION> (see regenerate.sh and docs/llama-engine.md).
 */
#include <stdio.h>
#include <stddef.h>
#include "llama.h"

#if !defined(LAYOUT_B4916) && !defined(LAYOUT_V0_5_0) && !defined(LAYOUT_V0_7_0)
#error "define LAYOUT_B4916, LAYOUT_V0_5_0 or LAYOUT_V0_7_0"
#endif

#define SIZE(T) printf("%s.sizeof %zu\n", #T, sizeof(struct T))
#define FIELD(T, f) printf("%s.%s %zu\n", #T, #f, offsetof(struct T, f))

int main(void) {
    SIZE(llama_model_params);
    FIELD(llama_model_params, devices);
#if !defined(LAYOUT_B4916)
    FIELD(llama_model_params, tensor_buft_overrides);
#endif
    FIELD(llama_model_params, n_gpu_layers);
    FIELD(llama_model_params, split_mode);
#if !defined(LAYOUT_B4916)
    FIELD(llama_model_params, load_mode);
    FIELD(llama_model_params, lazy_mode);
#endif
    FIELD(llama_model_params, main_gpu);
    FIELD(llama_model_params, tensor_split);
    FIELD(llama_model_params, progress_callback);
    FIELD(llama_model_params, progress_callback_user_data);
    FIELD(llama_model_params, kv_overrides);
    FIELD(llama_model_params, vocab_only);
#if defined(LAYOUT_B4916)
    FIELD(llama_model_params, use_mmap);
    FIELD(llama_model_params, use_mlock);
    FIELD(llama_model_params, check_tensors);
#else
    FIELD(llama_model_params, check_tensors);
    FIELD(llama_model_params, use_extra_bufts);
    FIELD(llama_model_params, no_host);
    FIELD(llama_model_params, no_alloc);
    FIELD(llama_model_params, load_mtp);
#endif

    SIZE(llama_context_params);
    FIELD(llama_context_params, n_ctx);
    FIELD(llama_context_params, n_batch);
    FIELD(llama_context_params, n_ubatch);
    FIELD(llama_context_params, n_seq_max);
#if !defined(LAYOUT_B4916)
    FIELD(llama_context_params, n_rs_seq);
    FIELD(llama_context_params, n_outputs_max);
    FIELD(llama_context_params, n_outputs_max_per_seq);
#endif
    FIELD(llama_context_params, n_threads);
    FIELD(llama_context_params, n_threads_batch);
#if !defined(LAYOUT_B4916)
    FIELD(llama_context_params, ctx_type);
#endif
    FIELD(llama_context_params, rope_scaling_type);
    FIELD(llama_context_params, pooling_type);
    FIELD(llama_context_params, attention_type);
#if !defined(LAYOUT_B4916)
    FIELD(llama_context_params, flash_attn_type);
#endif
    FIELD(llama_context_params, rope_freq_base);
    FIELD(llama_context_params, rope_freq_scale);
    FIELD(llama_context_params, yarn_ext_factor);
    FIELD(llama_context_params, yarn_attn_factor);
    FIELD(llama_context_params, yarn_beta_fast);
    FIELD(llama_context_params, yarn_beta_slow);
    FIELD(llama_context_params, yarn_orig_ctx);
    FIELD(llama_context_params, defrag_thold);
    FIELD(llama_context_params, cb_eval);
    FIELD(llama_context_params, cb_eval_user_data);
    FIELD(llama_context_params, type_k);
    FIELD(llama_context_params, type_v);
#if defined(LAYOUT_V0_7_0)
    FIELD(llama_context_params, moe_cache_size);
#endif
#if defined(LAYOUT_B4916)
    FIELD(llama_context_params, logits_all);
    FIELD(llama_context_params, embeddings);
    FIELD(llama_context_params, offload_kqv);
    FIELD(llama_context_params, flash_attn);
    FIELD(llama_context_params, no_perf);
    FIELD(llama_context_params, abort_callback);
    FIELD(llama_context_params, abort_callback_data);
#else
    FIELD(llama_context_params, abort_callback);
    FIELD(llama_context_params, abort_callback_data);
    FIELD(llama_context_params, embeddings);
    FIELD(llama_context_params, offload_kqv);
    FIELD(llama_context_params, no_perf);
    FIELD(llama_context_params, op_offload);
    FIELD(llama_context_params, swa_full);
    FIELD(llama_context_params, kv_unified);
    FIELD(llama_context_params, samplers);
    FIELD(llama_context_params, n_samplers);
    FIELD(llama_context_params, ctx_other);
#endif

    SIZE(llama_batch);
    FIELD(llama_batch, n_tokens);
    FIELD(llama_batch, token);
    FIELD(llama_batch, embd);
    FIELD(llama_batch, pos);
    FIELD(llama_batch, n_seq_id);
    FIELD(llama_batch, seq_id);
    FIELD(llama_batch, logits);

    SIZE(llama_sampler_chain_params);
    FIELD(llama_sampler_chain_params, no_perf);

    SIZE(llama_perf_context_data);
    FIELD(llama_perf_context_data, t_start_ms);
    FIELD(llama_perf_context_data, t_load_ms);
    FIELD(llama_perf_context_data, t_p_eval_ms);
    FIELD(llama_perf_context_data, t_eval_ms);
    FIELD(llama_perf_context_data, n_p_eval);
    FIELD(llama_perf_context_data, n_eval);
#if !defined(LAYOUT_B4916)
    FIELD(llama_perf_context_data, n_reused);
#endif
#if defined(LAYOUT_V0_7_0)
    FIELD(llama_perf_context_data, n_reallocs_same);
    FIELD(llama_perf_context_data, n_reallocs_diff);
#endif

    SIZE(llama_token_data);
    FIELD(llama_token_data, id);
    FIELD(llama_token_data, logit);
    FIELD(llama_token_data, p);

    SIZE(llama_token_data_array);
    FIELD(llama_token_data_array, data);
    FIELD(llama_token_data_array, size);
    FIELD(llama_token_data_array, selected);
    FIELD(llama_token_data_array, sorted);
    return 0;
}
