/*
 * The simulated model file ("#rkllm-sim 1" + "key: value" lines) and the process-wide environment
 * overrides (RKLLM_SIM_TIME_SCALE, RKLLM_SIM_FAULT, RKLLM_SIM_TRACE, RKLLM_SIM_NPU_BUDGET_MB). Format documented in
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
    int hidden_then_generate;  /* GET_LAST_HIDDEN_LAYER goes on generating after the hidden states */
    /* Faults of runtime 1.3.0 (no effect in the 1.2 build, as on the real 1.2.3): */
    int think_finish;          /* 1: FINISH at </think> with enable_thinking=1 (not after rkllm_set_chat_template);
                                * 2: also after rkllm_set_chat_template; 0 off */
    int no_eos;                /* the EOS never fires: generation runs to max_new_tokens or the context end */
} SimFaults;

typedef enum { SIM_KIND_CHAT = 0, SIM_KIND_EMBEDDING = 1 } SimModelKind;

/* How a simulated model writes its reasoning and its tool calls: the families the server reads. */
typedef enum {
    SIM_DIALECT_HERMES,      /* <think>...</think>, <tool_call>{"name", "arguments"}</tool_call> (Qwen3, Hermes) */
    SIM_DIALECT_GPT_OSS,     /* gpt-oss's harmony channels: analysis, final, commentary to=functions.NAME */
    SIM_DIALECT_QWEN3_CODER  /* <think>, <tool_call><function=NAME><parameter=K>V</parameter></function></tool_call> */
} SimDialect;

typedef struct {
    char* name;
    SimModelKind kind; /* an embedding model (Qwen3-Embedding) has other defaults and no chat answers */
    int max_context_limit;
    char* toolkit_version; /* NULL = the runtime version */
    /* < 0 until set: the model file's value, else the kind's default (sim_config_load) */
    double prefill_tps;
    double decode_tps;
    double init_ms;
    double memory_mb;
    double run_overhead_ms; /* fixed cost of every run, before prefill (NPU setup, output copy) */
    int embd_size;          /* width of a GET_LAST_HIDDEN_LAYER row */
    double time_scale;
    double npu_budget_mb; /* > 0: rkllm_init fails (1.2) or crashes (1.3) when the live handles' memory_mb would exceed it */
    int thinking;
    SimDialect dialect; /* how the model writes its reasoning and tool calls */
    int trace_run_start; /* 1: a run_start trace line when a run begins (tests wait for it) */
    int reply_tokens;
    int image_embed_dim; /* floats per image token of multimodal input; 0 = the model takes no images */
    char* template_system;
    char* template_prefix;
    char* template_postfix;
    SimFaults fault;
    char* fault_spec; /* the fault value as given (for the trace) */
    char* trace_path; /* NULL = no trace */
} SimConfig;

/* Fills defaults (those that depend on the kind stay unset until sim_config_load). */
SIM_HIDDEN void sim_config_defaults(SimConfig* cfg);
/* Reads a model file over the defaults, then fills what it left unset with its kind's defaults.
 * Returns 0, or -1 with a message in err. */
SIM_HIDDEN int sim_config_load(SimConfig* cfg, const char* path, char* err, size_t errlen);
/* Applies RKLLM_SIM_TIME_SCALE / RKLLM_SIM_FAULT / RKLLM_SIM_TRACE / RKLLM_SIM_NPU_BUDGET_MB. Returns 0, or -1
 * with err. */
SIM_HIDDEN int sim_config_apply_env(SimConfig* cfg, char* err, size_t errlen);
/* Only RKLLM_SIM_TRACE (used when the model file itself cannot be read). */
SIM_HIDDEN const char* sim_env_trace_path(void);
SIM_HIDDEN void sim_config_free(SimConfig* cfg);

/* Parses a fault spec: comma-separated list of none | init_fail | init_null | error_after=N | hang
 * | slow_prefill=F | abort_ignores_prefill | max_handles=N | think_finish | think_finish_even_with_template
 * | no_eos | hidden_then_generate. Returns 0, or -1 with err. */
SIM_HIDDEN int sim_faults_parse(const char* spec, SimFaults* out, char* err, size_t errlen);

#endif
