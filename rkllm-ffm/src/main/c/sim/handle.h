/*
 * Per-handle state of the simulated runtime. Everything a model needs lives here, so several
 * handles work at once in one process. Locking:
 *   run_lock  serialises runs of one handle (held for a whole rkllm_run);
 *   lock      guards every field marked (L) below; never held while calling back the client.
 * rkllm_abort only takes `lock` (never run_lock), so it cannot deadlock with a running run.
 */
#ifndef RKLLM_SIM_HANDLE_H
#define RKLLM_SIM_HANDLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "model_file.h"
#include "tools.h"
#include "trace.h"

#define SIM_HANDLE_MAGIC 0x524b4c4dU /* "RKLM" */

/* A thread started by rkllm_run_async; joined by the next rkllm_run_async (once done) or by destroy. */
typedef struct SimAsyncThread {
    pthread_t thread;
    bool done; /* (L) */
    struct SimAsyncThread* next;
} SimAsyncThread;

typedef struct SimHandle {
    uint32_t magic;
    int id;
    SimConfig cfg;
    RKLLMParam param; /* copy of the init parameters; param.model_path points to model_path */
    char* model_path;
#if RKLLM_ABI_MINOR == 2
    char* img_start; /* copies of the init-time image tags; param.img_* point to them */
    char* img_end;
    char* img_content;
#endif
    LLMResultCallback callback;
    void* callback_userdata; /* 1.3: RKLLMCallback.result_userdata */

    pthread_mutex_t run_lock;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* signalled on abort and when a run or async job ends */

    /* (L) run control */
    bool running;
    bool abort_requested;
    pthread_t runner;
    bool destroying;               /* rkllm_destroy started: runs abort at once */
    SimAsyncThread* async_threads; /* not yet joined */

    /* (L) KV cache model */
    int cache_tokens;
    int system_tokens; /* tokens of the cached system part; -1 = system part not cached */
    unsigned cache_epoch; /* bumped by every explicit cache change (clear, template, load...) */
    bool prompt_cache_loaded;
    /* fault think_finish: the cache size right after a run that ended at </think> with keep_history=1
     * (-1 none), and the cache_epoch then; the next run continuing from exactly that cache stops early */
    int think_end_cache;
    unsigned think_end_epoch;
    /* [[json]]: the outcome list of the last directive seen, how many of its outcomes were used, and the
     * cache size after a [[json]] run that kept its history (-1 none) with the cache_epoch then */
    char* json_outcomes;
    char* json_prompt; /* the prompt that carried it (its schema serves the retries) */
    int json_used;
    int json_end_cache;
    unsigned json_end_epoch;

    /* (L) templates and tools */
    char* system_text;
    char* prefix_text;
    char* postfix_text;
    bool custom_template; /* set_chat_template was called: enable_thinking has no effect */
    char* tools_json;
    char* tool_response_tag;
    SimToolList tools;

    /* (L) LoRA adapters */
    char** lora_names;
    int n_loras;

    SimTrace trace;
} SimHandle;

/* Allocates a handle owning cfg (moved in) and a copy of param. */
SIM_HIDDEN SimHandle* sim_handle_new(SimConfig* cfg, const RKLLMParam* param, const SimTrace* trace);
SIM_HIDDEN void sim_handle_free(SimHandle* h);
/* The handle behind an LLMHandle, or NULL (NULL or not a live simulated handle). */
SIM_HIDDEN SimHandle* sim_handle_get(LLMHandle handle);

/* Waits ms milliseconds (< 0: forever). When abortable, returns 1 as soon as an abort is requested
 * (at once if already requested), else 0 when the time is up. Not abortable: plain sleep, returns 0. */
SIM_HIDDEN int sim_handle_wait(SimHandle* h, double ms, int abortable);
SIM_HIDDEN int sim_handle_abort_requested(SimHandle* h);

/* Scales a model duration (ms) by the model's time_scale. */
SIM_HIDDEN double sim_scaled_ms(const SimHandle* h, double ms);

#endif
