/*
 * The simulated model file ("#rkllm-sim 1" + "key: value" lines) and the process-wide environment
 * overrides (RKLLM_SIM_TIME_SCALE, RKLLM_SIM_FAULT, RKLLM_SIM_TRACE). Format documented in
 * docs/simulated-runtime.md ("Model files").
 */
#ifndef RKLLM_SIM_MODEL_FILE_H
#define RKLLM_SIM_MODEL_FILE_H

#include <stddef.h>
#include "common.h"

#define SIM_MODEL_MAGIC "#rkllm-sim 1"

typedef struct {
    int init_fail;             /* rkllm_init returns -1 */
    int init_null;             /* rkllm_init returns 0 but leaves *handle NULL */
    int error_after;           /* >= 0: RKLLM_RUN_ERROR after that many generated tokens; -1 off */
    int hang;                  /* after prefill: emit nothing until rkllm_abort */
    double slow_prefill;       /* prefill time factor (1 = normal) */
    int abort_ignores_prefill; /* abort only takes effect once prefill ended */
    int max_handles;           /* >= 0: rkllm_init fails (out of NPU memory) while this many handles live; -1 off */
} SimFaults;

typedef struct {
    char* name;
    int max_context_limit;
    char* toolkit_version; /* NULL = the runtime version */
    double prefill_tps;
    double decode_tps;
    double init_ms;
    double memory_mb;
    double time_scale;
    int thinking;
    int reply_tokens;
    int image_embed_dim; /* floats per image token of multimodal input; 0 = the model takes no images */
    char* template_system;
    char* template_prefix;
    char* template_postfix;
    SimFaults fault;
    char* fault_spec; /* the fault value as given (for the trace) */
    char* trace_path; /* NULL = no trace */
} SimConfig;

/* Fills defaults. */
SIM_HIDDEN void sim_config_defaults(SimConfig* cfg);
/* Reads a model file over the defaults. Returns 0, or -1 with a message in err. */
SIM_HIDDEN int sim_config_load(SimConfig* cfg, const char* path, char* err, size_t errlen);
/* Applies RKLLM_SIM_TIME_SCALE / RKLLM_SIM_FAULT / RKLLM_SIM_TRACE. Returns 0, or -1 with err. */
SIM_HIDDEN int sim_config_apply_env(SimConfig* cfg, char* err, size_t errlen);
/* Only RKLLM_SIM_TRACE (used when the model file itself cannot be read). */
SIM_HIDDEN const char* sim_env_trace_path(void);
SIM_HIDDEN void sim_config_free(SimConfig* cfg);

/* Parses a fault spec: comma-separated list of none | init_fail | init_null | error_after=N | hang
 * | slow_prefill=F | abort_ignores_prefill. Returns 0, or -1 with err. */
SIM_HIDDEN int sim_faults_parse(const char* spec, SimFaults* out, char* err, size_t errlen);

#endif
