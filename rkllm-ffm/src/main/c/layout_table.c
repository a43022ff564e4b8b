/*
 * Prints the offset of every field and the size of every struct of rkllm.h, for the ABI it is
 * compiled for, one "Struct.field offset" / "Struct.sizeof size" line each ("Struct.member.field" for a
 * field of a nested struct the binding reads through the outer one, offset from the outer struct's
 * start). The binding's layout test compares the Java layouts against this table, so the Java side and
 * the C compiler must agree.
 */
#include <stdio.h>
#include <stddef.h>
#include "rkllm.h"

#define SIZE(T) printf("%s.sizeof %zu\n", #T, sizeof(T))
#define FIELD(T, f) printf("%s.%s %zu\n", #T, #f, offsetof(T, f))

int main(void) {
    SIZE(RKLLMExtendParam);
    FIELD(RKLLMExtendParam, base_domain_id);
    FIELD(RKLLMExtendParam, embed_flash);
    FIELD(RKLLMExtendParam, enabled_cpus_num);
    FIELD(RKLLMExtendParam, enabled_cpus_mask);
    FIELD(RKLLMExtendParam, n_batch);
    FIELD(RKLLMExtendParam, use_cross_attn);
    FIELD(RKLLMExtendParam, reserved);

    SIZE(RKLLMParam);
    FIELD(RKLLMParam, model_path);
    FIELD(RKLLMParam, max_context_len);
    FIELD(RKLLMParam, max_new_tokens);
    FIELD(RKLLMParam, top_k);
    FIELD(RKLLMParam, n_keep);
    FIELD(RKLLMParam, top_p);
    FIELD(RKLLMParam, temperature);
    FIELD(RKLLMParam, repeat_penalty);
    FIELD(RKLLMParam, frequency_penalty);
    FIELD(RKLLMParam, presence_penalty);
    FIELD(RKLLMParam, mirostat);
    FIELD(RKLLMParam, mirostat_tau);
    FIELD(RKLLMParam, mirostat_eta);
    FIELD(RKLLMParam, skip_special_token);
#if RKLLM_ABI_MINOR >= 3
    FIELD(RKLLMParam, ignore_eos_token);
#endif
    FIELD(RKLLMParam, is_async);
#if RKLLM_ABI_MINOR == 2
    FIELD(RKLLMParam, img_start);
    FIELD(RKLLMParam, img_end);
    FIELD(RKLLMParam, img_content);
#endif
    FIELD(RKLLMParam, extend_param);

    SIZE(RKLLMLoraAdapter);
    FIELD(RKLLMLoraAdapter, lora_adapter_path);
    FIELD(RKLLMLoraAdapter, lora_adapter_name);
    FIELD(RKLLMLoraAdapter, scale);

    SIZE(RKLLMEmbedInput);
    FIELD(RKLLMEmbedInput, embed);
    FIELD(RKLLMEmbedInput, n_tokens);

    SIZE(RKLLMTokenInput);
    FIELD(RKLLMTokenInput, input_ids);
    FIELD(RKLLMTokenInput, n_tokens);

    SIZE(RKLLMMultiModalInput);
    FIELD(RKLLMMultiModalInput, prompt);
#if RKLLM_ABI_MINOR == 2
    FIELD(RKLLMMultiModalInput, image_embed);
    FIELD(RKLLMMultiModalInput, n_image_tokens);
    FIELD(RKLLMMultiModalInput, n_image);
    FIELD(RKLLMMultiModalInput, image_width);
    FIELD(RKLLMMultiModalInput, image_height);
#else
    FIELD(RKLLMMultiModalInput, image);
    FIELD(RKLLMMultiModalInput, video);
    SIZE(RKLLMImageInput);
    FIELD(RKLLMImageInput, image_embed);
    FIELD(RKLLMImageInput, n_image_tokens);
    FIELD(RKLLMImageInput, n_image);
    FIELD(RKLLMImageInput, image_start);
    FIELD(RKLLMImageInput, image_end);
    FIELD(RKLLMImageInput, image_content);
    FIELD(RKLLMImageInput, image_width);
    FIELD(RKLLMImageInput, image_height);
    SIZE(RKLLMVideoInput);
    FIELD(RKLLMVideoInput, video_embed);
    FIELD(RKLLMVideoInput, n_frame_tokens);
    FIELD(RKLLMVideoInput, n_frame_per_video);
    FIELD(RKLLMVideoInput, n_video);
    FIELD(RKLLMVideoInput, video_start);
    FIELD(RKLLMVideoInput, video_end);
    FIELD(RKLLMVideoInput, video_content);
    FIELD(RKLLMVideoInput, frame_width);
    FIELD(RKLLMVideoInput, frame_height);
#endif

    SIZE(RKLLMInput);
    FIELD(RKLLMInput, role);
    FIELD(RKLLMInput, enable_thinking);
    FIELD(RKLLMInput, input_type);
    FIELD(RKLLMInput, prompt_input);
    FIELD(RKLLMInput, embed_input);
    FIELD(RKLLMInput, token_input);
    FIELD(RKLLMInput, multimodal_input);

    SIZE(RKLLMLoraParam);
    FIELD(RKLLMLoraParam, lora_adapter_name);

    SIZE(RKLLMPromptCacheParam);
    FIELD(RKLLMPromptCacheParam, save_prompt_cache);
    FIELD(RKLLMPromptCacheParam, prompt_cache_path);

#if RKLLM_ABI_MINOR >= 3
    SIZE(RKLLMSamplingParam);
    FIELD(RKLLMSamplingParam, top_k);
    FIELD(RKLLMSamplingParam, top_p);
    FIELD(RKLLMSamplingParam, temperature);
    FIELD(RKLLMSamplingParam, repeat_penalty);
    FIELD(RKLLMSamplingParam, frequency_penalty);
    FIELD(RKLLMSamplingParam, presence_penalty);
    FIELD(RKLLMSamplingParam, mirostat);
    FIELD(RKLLMSamplingParam, mirostat_tau);
    FIELD(RKLLMSamplingParam, mirostat_eta);
#endif

    SIZE(RKLLMInferParam);
    FIELD(RKLLMInferParam, mode);
    FIELD(RKLLMInferParam, lora_params);
    FIELD(RKLLMInferParam, prompt_cache_params);
#if RKLLM_ABI_MINOR >= 3
    FIELD(RKLLMInferParam, sampling_params);
#endif
    FIELD(RKLLMInferParam, keep_history);
#if RKLLM_ABI_MINOR >= 3
    FIELD(RKLLMInferParam, max_new_tokens);
#endif

    SIZE(RKLLMResultLastHiddenLayer);
    FIELD(RKLLMResultLastHiddenLayer, hidden_states);
    FIELD(RKLLMResultLastHiddenLayer, embd_size);
    FIELD(RKLLMResultLastHiddenLayer, num_tokens);

    SIZE(RKLLMResultLogits);
    FIELD(RKLLMResultLogits, logits);
    FIELD(RKLLMResultLogits, vocab_size);
    FIELD(RKLLMResultLogits, num_tokens);

    SIZE(RKLLMPerfStat);
    FIELD(RKLLMPerfStat, prefill_time_ms);
    FIELD(RKLLMPerfStat, prefill_tokens);
    FIELD(RKLLMPerfStat, generate_time_ms);
    FIELD(RKLLMPerfStat, generate_tokens);
    FIELD(RKLLMPerfStat, memory_usage_mb);

    SIZE(RKLLMResult);
    FIELD(RKLLMResult, text);
    FIELD(RKLLMResult, token_id);
    FIELD(RKLLMResult, last_hidden_layer);
    FIELD(RKLLMResult, last_hidden_layer.hidden_states);
    FIELD(RKLLMResult, last_hidden_layer.embd_size);
    FIELD(RKLLMResult, last_hidden_layer.num_tokens);
    FIELD(RKLLMResult, logits);
    FIELD(RKLLMResult, perf);

    SIZE(RKLLMCrossAttnParam);
    FIELD(RKLLMCrossAttnParam, encoder_k_cache);
    FIELD(RKLLMCrossAttnParam, encoder_v_cache);
    FIELD(RKLLMCrossAttnParam, encoder_mask);
    FIELD(RKLLMCrossAttnParam, encoder_pos);
    FIELD(RKLLMCrossAttnParam, num_tokens);

#if RKLLM_ABI_MINOR >= 3
    SIZE(RKLLMCallback);
    FIELD(RKLLMCallback, result_callback);
    FIELD(RKLLMCallback, result_userdata);
    FIELD(RKLLMCallback, tokenizer_callback);
    FIELD(RKLLMCallback, tokenizer_userdata);
    FIELD(RKLLMCallback, embed_callback);
    FIELD(RKLLMCallback, embed_userdata);
#endif
    return 0;
}
