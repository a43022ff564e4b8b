/*
 * The C ABI of Rockchip's librkllmrt.so, as documented in docs/runtime-abi.md (and the
 * project's reference ../shared/docs/rkllm-runtime.md). One header for both supported ABIs:
 * compile with -DRKLLM_ABI_MINOR=2 (runtime 1.2.1-1.2.3) or -DRKLLM_ABI_MINOR=3 (runtime 1.3.0).
 *
 * The simulated runtime implements this header; the layout-table program prints its offsets so the
 * Java layouts are checked against the C compiler's view of the very same structs.
 */
#ifndef RKLLM_SIM_RKLLM_H
#define RKLLM_SIM_RKLLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef RKLLM_ABI_MINOR
#error "define RKLLM_ABI_MINOR as 2 or 3"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef void* LLMHandle;

typedef enum {
    RKLLM_RUN_NORMAL = 0,
    RKLLM_RUN_WAITING = 1,
    RKLLM_RUN_FINISH = 2,
    RKLLM_RUN_ERROR = 3
} LLMCallState;

typedef enum {
    RKLLM_INPUT_PROMPT = 0,
    RKLLM_INPUT_TOKEN = 1,
    RKLLM_INPUT_EMBED = 2,
    RKLLM_INPUT_MULTIMODAL = 3
} RKLLMInputType;

typedef enum {
    RKLLM_INFER_GENERATE = 0,
    RKLLM_INFER_GET_LAST_HIDDEN_LAYER = 1,
    RKLLM_INFER_GET_LOGITS = 2
} RKLLMInferMode;

typedef struct {
    int32_t base_domain_id;
    int8_t embed_flash;
    int8_t enabled_cpus_num;
    uint32_t enabled_cpus_mask;
    uint8_t n_batch;
    int8_t use_cross_attn;
    uint8_t reserved[104];
} RKLLMExtendParam;

typedef struct {
    const char* model_path;
    int32_t max_context_len;
    int32_t max_new_tokens;
    int32_t top_k;
    int32_t n_keep;
    float top_p;
    float temperature;
    float repeat_penalty;
    float frequency_penalty;
    float presence_penalty;
    int32_t mirostat;
    float mirostat_tau;
    float mirostat_eta;
    bool skip_special_token;
#if RKLLM_ABI_MINOR >= 3
    bool ignore_eos_token;
#endif
    bool is_async;
#if RKLLM_ABI_MINOR == 2
    const char* img_start;
    const char* img_end;
    const char* img_content;
#endif
    RKLLMExtendParam extend_param;
} RKLLMParam;

typedef struct {
    const char* lora_adapter_path;
    const char* lora_adapter_name;
    float scale;
} RKLLMLoraAdapter;

typedef struct {
    float* embed;
    size_t n_tokens;
} RKLLMEmbedInput;

typedef struct {
    int32_t* input_ids;
    size_t n_tokens;
} RKLLMTokenInput;

#if RKLLM_ABI_MINOR == 2
typedef struct {
    char* prompt;
    float* image_embed;
    size_t n_image_tokens;
    size_t n_image;
    size_t image_width;
    size_t image_height;
} RKLLMMultiModalInput;
#else
typedef struct {
    float* image_embed;
    size_t n_image_tokens;
    size_t n_image;
    const char* image_start;
    const char* image_end;
    const char* image_content;
    size_t image_width;
    size_t image_height;
} RKLLMImageInput;

typedef struct {
    float* video_embed;
    size_t n_frame_tokens;
    size_t n_frame_per_video;
    size_t n_video;
    const char* video_start;
    const char* video_end;
    const char* video_content;
    size_t frame_width;
    size_t frame_height;
} RKLLMVideoInput;

typedef struct {
    char* prompt;
    RKLLMImageInput image;
    RKLLMVideoInput video;
} RKLLMMultiModalInput;
#endif

typedef struct {
    const char* role;
    bool enable_thinking;
    RKLLMInputType input_type;
    union {
        const char* prompt_input;
        RKLLMEmbedInput embed_input;
        RKLLMTokenInput token_input;
        RKLLMMultiModalInput multimodal_input;
    };
} RKLLMInput;

typedef struct {
    const char* lora_adapter_name;
} RKLLMLoraParam;

typedef struct {
    int save_prompt_cache;
    const char* prompt_cache_path;
} RKLLMPromptCacheParam;

#if RKLLM_ABI_MINOR >= 3
typedef struct {
    int32_t top_k;
    float top_p;
    float temperature;
    float repeat_penalty;
    float frequency_penalty;
    float presence_penalty;
    int32_t mirostat;
    float mirostat_tau;
    float mirostat_eta;
} RKLLMSamplingParam;
#endif

typedef struct {
    RKLLMInferMode mode;
    RKLLMLoraParam* lora_params;
    RKLLMPromptCacheParam* prompt_cache_params;
#if RKLLM_ABI_MINOR >= 3
    RKLLMSamplingParam* sampling_params;
#endif
    int keep_history;
#if RKLLM_ABI_MINOR >= 3
    int32_t max_new_tokens;
#endif
} RKLLMInferParam;

typedef struct {
    const float* hidden_states;
    int embd_size;
    int num_tokens;
} RKLLMResultLastHiddenLayer;

typedef struct {
    const float* logits;
    int vocab_size;
    int num_tokens;
} RKLLMResultLogits;

typedef struct {
    float prefill_time_ms;
    int prefill_tokens;
    float generate_time_ms;
    int generate_tokens;
    float memory_usage_mb;
} RKLLMPerfStat;

typedef struct {
    const char* text;
    int32_t token_id;
    RKLLMResultLastHiddenLayer last_hidden_layer;
    RKLLMResultLogits logits;
    RKLLMPerfStat perf;
} RKLLMResult;

typedef struct {
    const char* encoder_k_cache;
    const char* encoder_v_cache;
    const char* encoder_mask;
    const char* encoder_pos;
    int num_tokens;
} RKLLMCrossAttnParam;

typedef int (*LLMResultCallback)(RKLLMResult* result, void* userdata, LLMCallState state);

#if RKLLM_ABI_MINOR >= 3
typedef int (*LLMTokenizerCallback)(void* userdata, const char* text, int32_t len, int32_t* tokens, int32_t max_tokens);
typedef int (*LLMEmbedCallback)(void* userdata, int32_t* tokens, uint64_t n_tokens, void* embed, uint64_t embed_len);

typedef struct {
    LLMResultCallback result_callback;
    void* result_userdata;
    LLMTokenizerCallback tokenizer_callback;
    void* tokenizer_userdata;
    LLMEmbedCallback embed_callback;
    void* embed_userdata;
} RKLLMCallback;
#define RKLLM_INIT_CALLBACK_T RKLLMCallback*
#else
#define RKLLM_INIT_CALLBACK_T LLMResultCallback
#endif

RKLLMParam rkllm_createDefaultParam(void);
int rkllm_init(LLMHandle* handle, RKLLMParam* param, RKLLM_INIT_CALLBACK_T callback);
int rkllm_load_lora(LLMHandle handle, RKLLMLoraAdapter* lora_adapter);
int rkllm_load_prompt_cache(LLMHandle handle, const char* prompt_cache_path);
int rkllm_release_prompt_cache(LLMHandle handle);
int rkllm_destroy(LLMHandle handle);
int rkllm_run(LLMHandle handle, RKLLMInput* rkllm_input, RKLLMInferParam* rkllm_infer_params, void* userdata);
int rkllm_run_async(LLMHandle handle, RKLLMInput* rkllm_input, RKLLMInferParam* rkllm_infer_params, void* userdata);
int rkllm_abort(LLMHandle handle);
int rkllm_is_running(LLMHandle handle);
int rkllm_clear_kv_cache(LLMHandle handle, int keep_system_prompt, int* start_pos, int* end_pos);
int rkllm_get_kv_cache_size(LLMHandle handle, int* cache_sizes);
int rkllm_set_chat_template(LLMHandle handle, const char* system_prompt, const char* prompt_prefix, const char* prompt_postfix);
int rkllm_set_function_tools(LLMHandle handle, const char* system_prompt, const char* tools, const char* tool_response_str);
int rkllm_set_cross_attn_params(LLMHandle handle, RKLLMCrossAttnParam* cross_attn_params);

#ifdef __cplusplus
}
#endif

#endif
