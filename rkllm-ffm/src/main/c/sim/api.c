/*
 * The exported C API of librkllmrt.so (rkllm.h), simulated. Only these functions are exported;
 * behaviour is documented in docs/simulated-runtime.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "handle.h"
#include "json.h"
#include "model_file.h"
#include "npu_memory.h"
#include "prompt_cache.h"
#include "run.h"
#include "strbuf.h"
#include "tokenizer.h"
#include "tools.h"
#include "trace.h"

RKLLMParam rkllm_createDefaultParam(void) {
    RKLLMParam p;
    memset(&p, 0, sizeof p);
    p.model_path = NULL;
    p.max_context_len = 512;
    p.max_new_tokens = -1;
    p.top_k = 1;
    p.n_keep = 0;
    p.top_p = 0.9f;
    p.temperature = 0.8f;
    p.repeat_penalty = 1.1f;
    p.frequency_penalty = 0.0f;
    p.presence_penalty = 0.0f;
    p.mirostat = 0;
    p.mirostat_tau = 5.0f;
    p.mirostat_eta = 0.1f;
    p.skip_special_token = true;
    p.is_async = false;
    p.extend_param.n_batch = 1;
    return p;
}

static void trace_init(const SimTrace* t, const RKLLMParam* p, const SimConfig* cfg, const char* result,
                       const char* error) {
    SimTraceLine line;
    if (!sim_trace_line_start(&line, t, "init")) return;
    JsonWriter* w = &line.w;
    jw_str(w, "abi", SIM_ABI_NAME);
    jw_str(w, "runtime_version", sim_runtime_version());
    jw_str(w, "model_path", p->model_path);
    jw_str(w, "model", cfg ? cfg->name : NULL);
    if (cfg) jw_str(w, "kind", cfg->kind == SIM_KIND_EMBEDDING ? "embedding" : "chat");
    jw_int(w, "max_context_len", p->max_context_len);
    jw_int(w, "max_new_tokens", p->max_new_tokens);
    jw_int(w, "top_k", p->top_k);
    jw_num(w, "top_p", p->top_p);
    jw_num(w, "temperature", p->temperature);
    jw_num(w, "repeat_penalty", p->repeat_penalty);
    jw_num(w, "frequency_penalty", p->frequency_penalty);
    jw_num(w, "presence_penalty", p->presence_penalty);
    jw_int(w, "mirostat", p->mirostat);
    jw_num(w, "mirostat_tau", p->mirostat_tau);
    jw_num(w, "mirostat_eta", p->mirostat_eta);
    jw_int(w, "n_keep", p->n_keep);
    jw_bool(w, "skip_special_token", p->skip_special_token);
#if RKLLM_ABI_MINOR >= 3
    jw_bool(w, "ignore_eos_token", p->ignore_eos_token);
#endif
    jw_bool(w, "is_async", p->is_async);
    jw_int(w, "n_batch", p->extend_param.n_batch);
    jw_int(w, "base_domain_id", p->extend_param.base_domain_id);
    jw_int(w, "enabled_cpus_num", p->extend_param.enabled_cpus_num);
    jw_int(w, "enabled_cpus_mask", p->extend_param.enabled_cpus_mask);
    jw_int(w, "embed_flash", p->extend_param.embed_flash);
    jw_int(w, "use_cross_attn", p->extend_param.use_cross_attn);
#if RKLLM_ABI_MINOR == 2
    jw_str(w, "img_start", p->img_start);
    jw_str(w, "img_end", p->img_end);
    jw_str(w, "img_content", p->img_content);
#endif
    if (cfg) jw_int(w, "image_embed_dim", cfg->image_embed_dim);
    if (cfg) {
        jw_num(w, "time_scale", cfg->time_scale);
        jw_str(w, "fault", cfg->fault_spec);
        jw_num(w, "memory_mb", cfg->memory_mb);
        jw_num(w, "npu_budget_mb", cfg->npu_budget_mb);
    }
    jw_str(w, "result", result);
    if (error) jw_str(w, "error", error);
    sim_trace_line_end(&line);
}

/* Traces a call with no extra fields, or with a few ints. */
static void trace_simple(SimHandle* h, const char* call, const char* k1, long long v1, const char* k2, long long v2) {
    SimTraceLine line;
    if (!sim_trace_line_start(&line, &h->trace, call)) return;
    JsonWriter* w = &line.w;
    if (k1) jw_int(w, k1, v1);
    if (k2) jw_int(w, k2, v2);
    sim_trace_line_end(&line);
}

/* The RKNN driver layer's allocation failure line, as real runtimes print it: "E RKNN: [hh:mm:ss.mmm] ...". */
static void print_rknn_malloc_failure(double mb) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    fprintf(stderr, "E RKNN: [%02d:%02d:%02d.%03ld] failed to malloc npu memory, size: %lld, flags: 0x2\n", tm.tm_hour,
            tm.tm_min, tm.tm_sec, (long)(tv.tv_usec / 1000), (long long)(mb * 1024 * 1024));
}

#if RKLLM_ABI_MINOR >= 3
/* Runtime 1.3.0 dies inside rkllm_init when the NPU memory runs out, where 1.2.3 returned -1
 * (rknn-llm#522): an invalid write through a pointer the compiler cannot see is NULL, so the
 * process gets a real SIGSEGV (with the runtime's frame on top), not a trap or an abort. */
__attribute__((noinline)) static void crash_in_init(void) {
    volatile int* volatile nowhere = NULL;
    *nowhere = 0;
    abort(); /* only if a signal handler returned */
}
#endif

int rkllm_init(LLMHandle* handle, RKLLMParam* param, RKLLM_INIT_CALLBACK_T callback) {
    if (handle) *handle = NULL;
    if (!handle || !param) {
        fprintf(stderr, "E rkllm: rkllm_init: handle and param must not be NULL\n");
        return -1;
    }
    char err[1024] = "";
    SimConfig cfg;
    sim_config_defaults(&cfg);
    int id = sim_next_handle_id();
    int rc;
    if (!param->model_path) {
        snprintf(err, sizeof err, "model_path is NULL");
        rc = -1;
    } else {
        rc = sim_config_load(&cfg, param->model_path, err, sizeof err);
        if (rc == 0) rc = sim_config_apply_env(&cfg, err, sizeof err);
    }
    SimTrace trace;
    sim_trace_open(&trace, rc == 0 ? cfg.trace_path : sim_env_trace_path(), id);
    if (rc == 0) {
        int limit = cfg.max_context_limit;
        if (cfg.fault.init_fail) {
            snprintf(err, sizeof err, "simulated init failure (fault init_fail)");
            rc = -1;
        } else if (param->max_context_len > limit) {
            snprintf(err, sizeof err, "max_context[%d] must be less than the model's max_context_limit[%d]",
                     param->max_context_len, limit);
            rc = -1;
        } else if (param->max_context_len <= 0) {
            snprintf(err, sizeof err, "max_context[%d] must be greater than 0", param->max_context_len);
            rc = -1;
        } else if (cfg.fault.max_handles >= 0 && sim_live_handles_add(0) >= cfg.fault.max_handles) {
            snprintf(err, sizeof err, "failed to allocate NPU memory for the model: %d model(s) already loaded "
                     "(simulated, fault max_handles=%d)", sim_live_handles_add(0), cfg.fault.max_handles);
            rc = -1;
        } else if (cfg.fault.init_null) {
            fprintf(stderr, "E rkllm: simulated init failure, handle left NULL (fault init_null)\n");
            fflush(stderr);
            trace_init(&trace, param, &cfg, "null_handle", "fault init_null");
            sim_trace_close(&trace);
            sim_config_free(&cfg);
            return 0;
        } else {
            double in_use;
            int live;
            if (sim_npu_memory_reserve(cfg.memory_mb, cfg.npu_budget_mb, &in_use, &live) != 0) {
                print_rknn_malloc_failure(cfg.memory_mb);
                snprintf(err, sizeof err, "rkllm_init failed: not enough NPU memory: the model needs %.0f MB, %d "
                         "model(s) hold %.0f of %.0f MB (simulated budget)", cfg.memory_mb, live, in_use,
                         cfg.npu_budget_mb);
#if RKLLM_ABI_MINOR >= 3
                fprintf(stderr, "E rkllm: rkllm_init failed\n");
                fflush(stderr);
                trace_init(&trace, param, &cfg, "crash", err);
                crash_in_init();
#endif
                rc = -1;
            }
        }
    }
    if (rc != 0) {
        fprintf(stderr, "E rkllm: %s\n", err);
        fflush(stderr);
        trace_init(&trace, param, rc == 0 ? &cfg : (cfg.name ? &cfg : NULL), "error", err);
        sim_trace_close(&trace);
        sim_config_free(&cfg);
        return -1;
    }

    sim_sleep_ms(cfg.init_ms * cfg.time_scale);
    SimHandle* h = sim_handle_new(&cfg, param, &trace);
#if RKLLM_ABI_MINOR >= 3
    if (callback) {
        h->callback = callback->result_callback;
        h->callback_userdata = callback->result_userdata;
    }
#else
    h->callback = callback;
#endif
    const char* toolkit = h->cfg.toolkit_version ? h->cfg.toolkit_version : sim_runtime_version();
    printf("I rkllm: %s%s, rknpu driver version: 0.9.8, platform: RK3588\n", sim_runtime_version_label(),
           sim_runtime_version());
    printf("I rkllm: rkllm-toolkit version: %s, max_context_limit: %d, npu_core_num: 3, target_platform: RK3588, "
           "model_dtype: W8A8\n",
           toolkit, h->cfg.max_context_limit);
    fflush(stdout);
    trace_init(&h->trace, &h->param, &h->cfg, "ok", NULL);
    sim_live_handles_add(1);
    *handle = h;
    return 0;
}

int rkllm_destroy(LLMHandle handle) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    pthread_mutex_lock(&h->lock);
    if (h->running && pthread_equal(h->runner, pthread_self())) {
        pthread_mutex_unlock(&h->lock);
        fprintf(stderr, "E rkllm: rkllm_destroy called from inside a callback of the same handle\n");
        return -1;
    }
    h->destroying = true; /* async runs not yet started abort at once */
    if (h->running) {
        h->abort_requested = true;
        pthread_cond_broadcast(&h->cond);
    }
    pthread_mutex_unlock(&h->lock);
    sim_join_async_threads(h, true);
    pthread_mutex_lock(&h->lock);
    while (h->running) { /* a blocking run on another thread */
        h->abort_requested = true;
        pthread_cond_broadcast(&h->cond);
        pthread_cond_wait(&h->cond, &h->lock);
    }
    pthread_mutex_unlock(&h->lock);
    pthread_mutex_lock(&h->run_lock); /* a run still inside its epilogue */
    pthread_mutex_unlock(&h->run_lock);
    trace_simple(h, "destroy", NULL, 0, NULL, 0);
    sim_npu_memory_release(h->cfg.memory_mb);
    sim_handle_free(h);
    sim_live_handles_add(-1);
    return 0;
}

int rkllm_run(LLMHandle handle, RKLLMInput* rkllm_input, RKLLMInferParam* rkllm_infer_params, void* userdata) {
    SimHandle* h = sim_handle_get(handle);
    if (!h || !rkllm_input) {
        fprintf(stderr, "E rkllm: rkllm_run: invalid handle or input\n");
        return -1;
    }
    SimRunRequest* req = sim_run_request_new(rkllm_input, rkllm_infer_params, userdata);
    sim_images_snapshot(&req->images, &req->input_tokens, rkllm_input, h);
    int rc = sim_run(h, req);
    sim_run_request_free(req);
    return rc;
}

int rkllm_run_async(LLMHandle handle, RKLLMInput* rkllm_input, RKLLMInferParam* rkllm_infer_params, void* userdata) {
    SimHandle* h = sim_handle_get(handle);
    if (!h || !rkllm_input) {
        fprintf(stderr, "E rkllm: rkllm_run_async: invalid handle or input\n");
        return -1;
    }
    SimRunRequest* req = sim_run_request_new(rkllm_input, rkllm_infer_params, userdata);
    sim_images_snapshot(&req->images, &req->input_tokens, rkllm_input, h);
    return sim_run_async(h, req);
}

int rkllm_abort(LLMHandle handle) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    pthread_mutex_lock(&h->lock);
    int active = h->running;
    if (active) {
        h->abort_requested = true;
        pthread_cond_broadcast(&h->cond);
    }
    pthread_mutex_unlock(&h->lock);
    SimTraceLine line;
    if (sim_trace_line_start(&line, &h->trace, "abort")) {
        JsonWriter* w = &line.w;
        jw_bool(w, "active", active);
        sim_trace_line_end(&line);
    }
    return 0;
}

int rkllm_is_running(LLMHandle handle) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    pthread_mutex_lock(&h->lock);
    int running = h->running;
    pthread_mutex_unlock(&h->lock);
#if RKLLM_ABI_MINOR == 2
    return running ? 0 : 1; /* the 1.2 header documents 0 = running */
#else
    return running ? 1 : 0;
#endif
}

int rkllm_clear_kv_cache(LLMHandle handle, int keep_system_prompt, int* start_pos, int* end_pos) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    int rc = 0;
    pthread_mutex_lock(&h->lock);
    if (start_pos && end_pos) {
        int s = start_pos[0] < 0 ? 0 : start_pos[0] > h->cache_tokens ? h->cache_tokens : start_pos[0];
        int e = end_pos[0] < s ? s : end_pos[0] > h->cache_tokens ? h->cache_tokens : end_pos[0];
        h->cache_tokens -= e - s;
        if (e > s && h->system_tokens >= 0 && s < h->system_tokens) h->system_tokens = -1;
        if (h->cache_tokens == 0) h->system_tokens = -1;
    } else if (start_pos || end_pos) {
        rc = -1;
    } else if (keep_system_prompt && h->system_tokens >= 0 && h->cache_tokens >= h->system_tokens) {
        h->cache_tokens = h->system_tokens;
    } else {
        h->cache_tokens = 0;
        h->system_tokens = -1;
    }
    if (rc == 0) h->cache_epoch++;
    int after = h->cache_tokens;
    pthread_mutex_unlock(&h->lock);
    SimTraceLine line;
    if (sim_trace_line_start(&line, &h->trace, "clear_kv_cache")) {
        JsonWriter* w = &line.w;
        jw_int(w, "keep_system_prompt", keep_system_prompt);
        if (start_pos) jw_int(w, "start_pos", start_pos[0]);
        else jw_null(w, "start_pos");
        if (end_pos) jw_int(w, "end_pos", end_pos[0]);
        else jw_null(w, "end_pos");
        jw_int(w, "cache_after", after);
        jw_int(w, "rc", rc);
        sim_trace_line_end(&line);
    }
    return rc;
}

int rkllm_get_kv_cache_size(LLMHandle handle, int* cache_sizes) {
    SimHandle* h = sim_handle_get(handle);
    if (!h || !cache_sizes) return -1;
    int n = h->param.extend_param.n_batch > 1 ? h->param.extend_param.n_batch : 1;
    pthread_mutex_lock(&h->lock);
    int size = h->cache_tokens;
    pthread_mutex_unlock(&h->lock);
    for (int i = 0; i < n; i++) cache_sizes[i] = size;
    trace_simple(h, "get_kv_cache_size", "n_batch", n, "cache_tokens", size);
    return 0;
}

int rkllm_set_chat_template(LLMHandle handle, const char* system_prompt, const char* prompt_prefix,
                            const char* prompt_postfix) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    pthread_mutex_lock(&h->lock);
    free(h->system_text);
    free(h->prefix_text);
    free(h->postfix_text);
    h->system_text = sim_strdup(system_prompt ? system_prompt : "");
    h->prefix_text = sim_strdup(prompt_prefix ? prompt_prefix : "");
    h->postfix_text = sim_strdup(prompt_postfix ? prompt_postfix : "");
    h->custom_template = true;
    /* Like the real runtime, the template only shapes later prompts: the KV cache is untouched. */
    pthread_mutex_unlock(&h->lock);
    SimTraceLine line;
    if (sim_trace_line_start(&line, &h->trace, "set_chat_template")) {
        JsonWriter* w = &line.w;
        jw_str(w, "system_prompt", system_prompt);
        jw_str(w, "prompt_prefix", prompt_prefix);
        jw_str(w, "prompt_postfix", prompt_postfix);
        sim_trace_line_end(&line);
    }
    return 0;
}

int rkllm_set_function_tools(LLMHandle handle, const char* system_prompt, const char* tools,
                             const char* tool_response_str) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    char err[256] = "";
    SimToolList list;
    int rc = sim_tools_parse(tools, &list, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "E rkllm: invalid tools json: %s\n", err);
        fflush(stderr);
    } else {
        bool any = (tools && tools[0]) || (system_prompt && system_prompt[0]);
        pthread_mutex_lock(&h->lock);
        sim_tools_free(&h->tools);
        h->tools = list;
        free(h->tools_json);
        h->tools_json = tools && tools[0] ? sim_strdup(tools) : NULL;
        free(h->tool_response_tag);
        h->tool_response_tag = sim_strdup(tool_response_str && tool_response_str[0] ? tool_response_str : "tool_response");
        free(h->system_text);
        h->system_text = any ? sim_tools_render_system(system_prompt, tools) : sim_strdup(h->cfg.template_system);
        h->cache_tokens = 0;
        h->system_tokens = -1;
        h->cache_epoch++;
        pthread_mutex_unlock(&h->lock);
    }
    SimTraceLine line;
    if (sim_trace_line_start(&line, &h->trace, "set_function_tools")) {
        JsonWriter* w = &line.w;
        jw_str(w, "system_prompt", system_prompt);
        jw_str(w, "tools", tools);
        jw_str(w, "tool_response_str", tool_response_str);
        jw_int(w, "rc", rc);
        if (rc) jw_str(w, "error", err);
        sim_trace_line_end(&line);
    }
    return rc;
}

int rkllm_load_prompt_cache(LLMHandle handle, const char* prompt_cache_path) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    char err[1024] = "";
    int tokens = 0, system_tokens = -1;
    int rc = sim_prompt_cache_load(prompt_cache_path, &tokens, &system_tokens, err, sizeof err);
    if (rc == 0 && tokens > h->param.max_context_len) {
        snprintf(err, sizeof err, "prompt cache %s holds %d tokens, more than max_context_len %d", prompt_cache_path,
                 tokens, h->param.max_context_len);
        rc = -1;
    }
    int after;
    pthread_mutex_lock(&h->lock);
    if (rc == 0) {
        h->cache_tokens = tokens;
        h->system_tokens = system_tokens;
        h->prompt_cache_loaded = true;
        h->cache_epoch++;
    }
    after = h->cache_tokens;
    pthread_mutex_unlock(&h->lock);
    if (rc) {
        fprintf(stderr, "E rkllm: %s\n", err);
        fflush(stderr);
    }
    SimTraceLine line;
    if (sim_trace_line_start(&line, &h->trace, "load_prompt_cache")) {
        JsonWriter* w = &line.w;
        jw_str(w, "path", prompt_cache_path);
        jw_int(w, "rc", rc);
        jw_int(w, "cache_after", after);
        if (rc) jw_str(w, "error", err);
        sim_trace_line_end(&line);
    }
    return rc;
}

int rkllm_release_prompt_cache(LLMHandle handle) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    pthread_mutex_lock(&h->lock);
    int was_loaded = h->prompt_cache_loaded;
    if (was_loaded) {
        h->cache_tokens = 0;
        h->system_tokens = -1;
        h->prompt_cache_loaded = false;
        h->cache_epoch++;
    }
    int after = h->cache_tokens;
    pthread_mutex_unlock(&h->lock);
    trace_simple(h, "release_prompt_cache", "was_loaded", was_loaded, "cache_after", after);
    return 0;
}

int rkllm_load_lora(LLMHandle handle, RKLLMLoraAdapter* lora_adapter) {
    SimHandle* h = sim_handle_get(handle);
    if (!h) return -1;
    char err[1024] = "";
    int rc = 0;
    if (!lora_adapter || !lora_adapter->lora_adapter_path || !lora_adapter->lora_adapter_name) {
        snprintf(err, sizeof err, "lora adapter path and name must not be NULL");
        rc = -1;
    } else if (access(lora_adapter->lora_adapter_path, R_OK) != 0) {
        snprintf(err, sizeof err, "cannot read lora adapter %s", lora_adapter->lora_adapter_path);
        rc = -1;
    } else {
        pthread_mutex_lock(&h->lock);
        int known = 0;
        for (int i = 0; i < h->n_loras; i++) known |= strcmp(h->lora_names[i], lora_adapter->lora_adapter_name) == 0;
        if (!known) {
            h->lora_names = sim_xrealloc(h->lora_names, (size_t)(h->n_loras + 1) * sizeof(char*));
            h->lora_names[h->n_loras++] = sim_strdup(lora_adapter->lora_adapter_name);
        }
        pthread_mutex_unlock(&h->lock);
    }
    if (rc) {
        fprintf(stderr, "E rkllm: %s\n", err);
        fflush(stderr);
    }
    SimTraceLine line;
    if (sim_trace_line_start(&line, &h->trace, "load_lora")) {
        JsonWriter* w = &line.w;
        jw_str(w, "path", lora_adapter ? lora_adapter->lora_adapter_path : NULL);
        jw_str(w, "name", lora_adapter ? lora_adapter->lora_adapter_name : NULL);
        if (lora_adapter) jw_num(w, "scale", lora_adapter->scale);
        else jw_null(w, "scale");
        jw_int(w, "rc", rc);
        sim_trace_line_end(&line);
    }
    return rc;
}

int rkllm_set_cross_attn_params(LLMHandle handle, RKLLMCrossAttnParam* cross_attn_params) {
    SimHandle* h = sim_handle_get(handle);
    if (!h || !cross_attn_params) return -1;
    trace_simple(h, "set_cross_attn_params", "num_tokens", cross_attn_params->num_tokens, NULL, 0);
    return 0;
}
