/* Creation, destruction and waiting of simulated handles. */
#include "handle.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "strbuf.h"

SimHandle* sim_handle_new(SimConfig* cfg, const RKLLMParam* param, const SimTrace* trace) {
    SimHandle* h = sim_xcalloc(1, sizeof(SimHandle));
    h->magic = SIM_HANDLE_MAGIC;
    h->id = trace->handle_id;
    h->cfg = *cfg;
    memset(cfg, 0, sizeof(*cfg));
    h->param = *param;
    h->model_path = sim_strdup(param->model_path);
    h->param.model_path = h->model_path;
#if RKLLM_ABI_MINOR == 2
    h->param.img_start = h->img_start = sim_strdup(param->img_start);
    h->param.img_end = h->img_end = sim_strdup(param->img_end);
    h->param.img_content = h->img_content = sim_strdup(param->img_content);
#endif
    pthread_mutex_init(&h->run_lock, NULL);
    pthread_mutex_init(&h->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cond, &ca);
    pthread_condattr_destroy(&ca);
    h->system_tokens = -1;
    h->think_end_cache = -1;
    h->json_end_cache = -1;
    h->system_text = sim_strdup(h->cfg.template_system);
    h->prefix_text = sim_strdup(h->cfg.template_prefix);
    h->postfix_text = sim_strdup(h->cfg.template_postfix);
    h->tool_response_tag = sim_strdup("tool_response");
    h->trace = *trace;
    return h;
}

void sim_handle_free(SimHandle* h) {
    if (!h) return;
    h->magic = 0;
    sim_trace_close(&h->trace);
    pthread_mutex_destroy(&h->run_lock);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->cond);
    sim_config_free(&h->cfg);
    free(h->model_path);
#if RKLLM_ABI_MINOR == 2
    free(h->img_start);
    free(h->img_end);
    free(h->img_content);
#endif
    free(h->system_text);
    free(h->prefix_text);
    free(h->postfix_text);
    free(h->tools_json);
    free(h->tool_response_tag);
    free(h->json_outcomes);
    free(h->json_prompt);
    sim_tools_free(&h->tools);
    for (int i = 0; i < h->n_loras; i++) free(h->lora_names[i]);
    free(h->lora_names);
    free(h);
}

SimHandle* sim_handle_get(LLMHandle handle) {
    SimHandle* h = handle;
    return h && h->magic == SIM_HANDLE_MAGIC ? h : NULL;
}

int sim_handle_abort_requested(SimHandle* h) {
    pthread_mutex_lock(&h->lock);
    int a = h->abort_requested;
    pthread_mutex_unlock(&h->lock);
    return a;
}

int sim_handle_wait(SimHandle* h, double ms, int abortable) {
    if (!abortable) {
        sim_sleep_ms(ms);
        return 0;
    }
    struct timespec until = sim_deadline(ms < 0 ? 0 : ms);
    int aborted;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        aborted = h->abort_requested;
        if (aborted) break;
        if (ms < 0) {
            pthread_cond_wait(&h->cond, &h->lock);
        } else if (ms == 0 || pthread_cond_timedwait(&h->cond, &h->lock, &until) != 0) {
            aborted = h->abort_requested;
            break;
        }
    }
    pthread_mutex_unlock(&h->lock);
    return aborted;
}

double sim_scaled_ms(const SimHandle* h, double ms) {
    return ms * h->cfg.time_scale;
}
