/* Parsing of simulated model files and of the environment overrides. */
#include "model_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyfile.h"
#include "strbuf.h"

#define DEFAULT_SYSTEM "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
#define DEFAULT_PREFIX "<|im_start|>user\n"
#define DEFAULT_POSTFIX "<|im_end|>\n<|im_start|>assistant\n"

static void faults_none(SimFaults* f) {
    memset(f, 0, sizeof(*f));
    f->error_after = -1;
    f->max_handles = -1;
    f->slow_prefill = 1.0;
}

void sim_config_defaults(SimConfig* cfg) {
    memset(cfg, 0, sizeof(*cfg));
    cfg->max_context_limit = 4096;
    cfg->prefill_tps = -1;
    cfg->decode_tps = 13;
    cfg->init_ms = -1;
    cfg->memory_mb = -1;
    cfg->run_overhead_ms = -1;
    cfg->embd_size = -1;
    cfg->time_scale = 1.0;
    cfg->thinking = 0;
    cfg->dialect = SIM_DIALECT_HERMES;
    cfg->reply_tokens = 48;
    cfg->template_system = sim_strdup(DEFAULT_SYSTEM);
    cfg->template_prefix = sim_strdup(DEFAULT_PREFIX);
    cfg->template_postfix = sim_strdup(DEFAULT_POSTFIX);
    faults_none(&cfg->fault);
    cfg->fault_spec = sim_strdup("none");
}

/* Defaults by kind for what the model file did not set: a Qwen3-1.7B chat model, or a Qwen3-Embedding-0.6B
 * (~640 tokens/s prefill, ~45 ms for a short text, ~500 MB, 1024 wide; see docs). */
static void resolve_kind_defaults(SimConfig* cfg) {
    bool embedding = cfg->kind == SIM_KIND_EMBEDDING;
    if (cfg->prefill_tps < 0) cfg->prefill_tps = embedding ? 640 : 250;
    if (cfg->init_ms < 0) cfg->init_ms = embedding ? 1000 : 3000;
    if (cfg->memory_mb < 0) cfg->memory_mb = embedding ? 500 : 2300;
    if (cfg->run_overhead_ms < 0) cfg->run_overhead_ms = embedding ? 15 : 0;
    if (cfg->embd_size < 0) cfg->embd_size = 1024;
}

void sim_config_free(SimConfig* cfg) {
    free(cfg->name);
    free(cfg->toolkit_version);
    free(cfg->template_system);
    free(cfg->template_prefix);
    free(cfg->template_postfix);
    free(cfg->fault_spec);
    free(cfg->trace_path);
    memset(cfg, 0, sizeof(*cfg));
}

int sim_faults_parse(const char* spec, SimFaults* out, char* err, size_t errlen) {
    SimFaults f;
    faults_none(&f);
    char* copy = sim_strdup(spec ? spec : "");
    int rc = 0;
    char* save = NULL;
    for (char* item = strtok_r(copy, ", \t", &save); item; item = strtok_r(NULL, ", \t", &save)) {
        if (strcmp(item, "none") == 0) {
            continue;
        } else if (strcmp(item, "init_fail") == 0) {
            f.init_fail = 1;
        } else if (strcmp(item, "init_null") == 0) {
            f.init_null = 1;
        } else if (strcmp(item, "hang") == 0) {
            f.hang = 1;
        } else if (strcmp(item, "abort_ignores_prefill") == 0) {
            f.abort_ignores_prefill = 1;
        } else if (strcmp(item, "think_finish") == 0) {
            f.think_finish = f.think_finish > 1 ? f.think_finish : 1;
        } else if (strcmp(item, "think_finish_even_with_template") == 0) {
            f.think_finish = 2;
        } else if (strcmp(item, "no_eos") == 0) {
            f.no_eos = 1;
        } else if (strcmp(item, "hidden_then_generate") == 0) {
            f.hidden_then_generate = 1;
        } else if (strncmp(item, "error_after=", 12) == 0) {
            if (sim_parse_int(item + 12, &f.error_after) || f.error_after < 0) {
                snprintf(err, errlen, "bad fault value '%s' (error_after=N, N >= 0)", item);
                rc = -1;
                break;
            }
        } else if (strncmp(item, "max_handles=", 12) == 0) {
            if (sim_parse_int(item + 12, &f.max_handles) || f.max_handles < 0) {
                snprintf(err, errlen, "bad fault value '%s' (max_handles=N, N >= 0)", item);
                rc = -1;
                break;
            }
        } else if (strncmp(item, "slow_prefill=", 13) == 0) {
            if (sim_parse_double(item + 13, &f.slow_prefill) || f.slow_prefill < 0) {
                snprintf(err, errlen, "bad fault value '%s' (slow_prefill=F, F >= 0)", item);
                rc = -1;
                break;
            }
        } else {
            snprintf(err, errlen,
                     "unknown fault '%s' (none, init_fail, init_null, error_after=N, hang, slow_prefill=F, "
                     "abort_ignores_prefill, max_handles=N, think_finish, think_finish_even_with_template, no_eos, "
                     "hidden_then_generate)",
                     item);
            rc = -1;
            break;
        }
    }
    free(copy);
    if (rc == 0) *out = f;
    return rc;
}

/* Decodes \n, \t, \r, \\ and \" escapes; other backslashes are kept literally. */
static void set_str(char** field, char* value) {
    free(*field);
    *field = value;
}

static int apply_key(SimConfig* cfg, const char* key, char* value, char* err, size_t errlen) {
    int rc = 0;
    double d;
    if (strcmp(key, "name") == 0) {
        set_str(&cfg->name, value);
        return 0;
    } else if (strcmp(key, "toolkit_version") == 0) {
        set_str(&cfg->toolkit_version, value);
        return 0;
    } else if (strcmp(key, "template_system") == 0) {
        set_str(&cfg->template_system, value);
        return 0;
    } else if (strcmp(key, "template_prefix") == 0) {
        set_str(&cfg->template_prefix, value);
        return 0;
    } else if (strcmp(key, "template_postfix") == 0) {
        set_str(&cfg->template_postfix, value);
        return 0;
    } else if (strcmp(key, "trace") == 0) {
        set_str(&cfg->trace_path, value[0] ? value : NULL);
        if (!value[0]) free(value);
        return 0;
    } else if (strcmp(key, "fault") == 0) {
        rc = sim_faults_parse(value, &cfg->fault, err, errlen);
        if (rc == 0) {
            set_str(&cfg->fault_spec, value);
            return 0;
        }
    } else if (strcmp(key, "kind") == 0) {
        if (strcmp(value, "chat") == 0) cfg->kind = SIM_KIND_CHAT;
        else if (strcmp(value, "embedding") == 0) cfg->kind = SIM_KIND_EMBEDDING;
        else rc = -1;
    } else if (strcmp(key, "embd_size") == 0) {
        rc = sim_parse_int(value, &cfg->embd_size) || cfg->embd_size <= 0 || cfg->embd_size > 65536 ? -1 : 0;
    } else if (strcmp(key, "run_overhead_ms") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->run_overhead_ms = rc ? cfg->run_overhead_ms : d;
    } else if (strcmp(key, "max_context_limit") == 0) {
        rc = sim_parse_int(value, &cfg->max_context_limit) || cfg->max_context_limit <= 0 ? -1 : 0;
    } else if (strcmp(key, "reply_tokens") == 0) {
        rc = sim_parse_int(value, &cfg->reply_tokens) || cfg->reply_tokens < 0 ? -1 : 0;
    } else if (strcmp(key, "image_embed_dim") == 0) {
        rc = sim_parse_int(value, &cfg->image_embed_dim) || cfg->image_embed_dim < 0 ? -1 : 0;
    } else if (strcmp(key, "thinking") == 0) {
        rc = sim_parse_int(value, &cfg->thinking) || (cfg->thinking != 0 && cfg->thinking != 1) ? -1 : 0;
    } else if (strcmp(key, "dialect") == 0) {
        if (strcmp(value, "hermes") == 0) cfg->dialect = SIM_DIALECT_HERMES;
        else if (strcmp(value, "gpt-oss") == 0) cfg->dialect = SIM_DIALECT_GPT_OSS;
        else if (strcmp(value, "qwen3-coder") == 0) cfg->dialect = SIM_DIALECT_QWEN3_CODER;
        else rc = -1;
    } else if (strcmp(key, "trace_run_start") == 0) {
        rc = sim_parse_int(value, &cfg->trace_run_start) || (cfg->trace_run_start != 0 && cfg->trace_run_start != 1)
                 ? -1 : 0;
    } else if (strcmp(key, "prefill_tps") == 0) {
        rc = sim_parse_double(value, &d) || d <= 0 ? -1 : 0;
        cfg->prefill_tps = rc ? cfg->prefill_tps : d;
    } else if (strcmp(key, "decode_tps") == 0) {
        rc = sim_parse_double(value, &d) || d <= 0 ? -1 : 0;
        cfg->decode_tps = rc ? cfg->decode_tps : d;
    } else if (strcmp(key, "init_ms") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->init_ms = rc ? cfg->init_ms : d;
    } else if (strcmp(key, "memory_mb") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->memory_mb = rc ? cfg->memory_mb : d;
    } else if (strcmp(key, "time_scale") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->time_scale = rc ? cfg->time_scale : d;
    } else if (strcmp(key, "npu_budget_mb") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->npu_budget_mb = rc ? cfg->npu_budget_mb : d;
    } else {
        fprintf(stderr, "W rkllm-sim: ignoring unknown model key '%s'\n", key);
    }
    if (rc && err[0] == '\0') snprintf(err, errlen, "bad value for '%s': '%s'", key, value);
    free(value);
    return rc;
}

static int apply_key_fn(void* cfg, const char* key, char* value, char* err, size_t errlen) {
    return apply_key(cfg, key, value, err, errlen);
}

int sim_config_load(SimConfig* cfg, const char* path, char* err, size_t errlen) {
    err[0] = '\0';
    size_t len;
    char* text = sim_read_file(path, &len);
    if (!text) {
        snprintf(err, errlen, "failed to open model file %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = sim_keyfile_parse(text, len, SIM_MODEL_MAGIC, path, true, apply_key_fn, cfg, err, errlen);
    free(text);
    if (rc == -2) {
        snprintf(err, errlen, "%s is not a simulated model: its first line must be \"%s\"", path, SIM_MODEL_MAGIC);
        return -1;
    }
    if (rc == 0 && !cfg->name) cfg->name = sim_file_stem(path);
    if (rc == 0) resolve_kind_defaults(cfg);
    return rc;
}

int sim_config_apply_env(SimConfig* cfg, char* err, size_t errlen) {
    const char* ts = getenv("RKLLM_SIM_TIME_SCALE");
    if (ts && *ts) {
        double d;
        if (sim_parse_double(ts, &d) || d < 0) {
            snprintf(err, errlen, "bad RKLLM_SIM_TIME_SCALE '%s'", ts);
            return -1;
        }
        cfg->time_scale = d;
    }
    const char* fault = getenv("RKLLM_SIM_FAULT");
    if (fault && *fault) {
        if (sim_faults_parse(fault, &cfg->fault, err, errlen)) return -1;
        set_str(&cfg->fault_spec, sim_strdup(fault));
    }
    const char* budget = getenv("RKLLM_SIM_NPU_BUDGET_MB");
    if (budget && *budget) {
        double d;
        if (sim_parse_double(budget, &d) || d < 0) {
            snprintf(err, errlen, "bad RKLLM_SIM_NPU_BUDGET_MB '%s'", budget);
            return -1;
        }
        cfg->npu_budget_mb = d;
    }
    const char* trace = sim_env_trace_path();
    if (trace) set_str(&cfg->trace_path, sim_strdup(trace));
    return 0;
}

const char* sim_env_trace_path(void) {
    const char* t = getenv("RKLLM_SIM_TRACE");
    return t && *t ? t : NULL;
}
