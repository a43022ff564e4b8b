/*
 * One inference run (rkllm_run / rkllm_run_async): a snapshot of the caller's input and infer
 * parameters (so an async run does not depend on the caller's memory), and its execution:
 * template assembly, KV-cache accounting, timed prefill, generation, callbacks, trace.
 */
#ifndef RKLLM_SIM_RUN_H
#define RKLLM_SIM_RUN_H

#include <stdbool.h>
#include "common.h"
#include "handle.h"
#include "multimodal.h"

typedef struct {
    char* role; /* "user" when NULL was given */
    bool enable_thinking;
    int input_type;
    char* prompt;           /* PROMPT / MULTIMODAL text, NULL otherwise */
    long long input_tokens; /* TOKEN / EMBED: n_tokens; MULTIMODAL: image tokens */
    SimImages images;       /* MULTIMODAL: set by sim_images_snapshot */
    bool has_infer_param;
    int mode;
    int keep_history;
    bool has_lora;
    char* lora_name;
    bool has_prompt_cache;
    int save_prompt_cache;
    char* prompt_cache_path;
#if RKLLM_ABI_MINOR >= 3
    bool has_sampling;
    RKLLMSamplingParam sampling;
    int max_new_tokens;
#endif
    void* userdata;
    bool is_async;
} SimRunRequest;

SIM_HIDDEN SimRunRequest* sim_run_request_new(const RKLLMInput* input, const RKLLMInferParam* ip, void* userdata);
SIM_HIDDEN void sim_run_request_free(SimRunRequest* req);

/* Runs to the end on the calling thread (callbacks fire here). Returns 0, or -1 on error. */
SIM_HIDDEN int sim_run(SimHandle* h, const SimRunRequest* req);
/* Starts sim_run on a detached thread that owns req. Returns 0, or -1 (req freed) if it cannot. */
SIM_HIDDEN int sim_run_async(SimHandle* h, SimRunRequest* req);
/* Joins the async threads of h: the finished ones, or all (waiting for them) when all is true. */
SIM_HIDDEN void sim_join_async_threads(SimHandle* h, bool all);

#endif
