/* Parsing of simulated encoder model files and of the environment overrides. */
#include "encoder_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyfile.h"
#include "strbuf.h"

#define MAX_ELEMENTS (64L * 1024 * 1024)

static void faults_none(EncoderFaults* f) {
    memset(f, 0, sizeof *f);
    f->run_error_after = -1;
    f->max_contexts = -1;
    f->slow_run = 1.0;
}

void enc_config_defaults(EncoderConfig* cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->width = 448;
    cfg->height = 448;
    cfg->channels = 3;
    cfg->input_format = RKNN_TENSOR_NHWC;
    cfg->input_type = RKNN_TENSOR_FLOAT16;
    cfg->image_tokens = 196;
    cfg->embed_dim = 2048;
    cfg->outputs = 1;
    cfg->output_dims = 2;
    cfg->output_type = RKNN_TENSOR_FLOAT16;
    cfg->encode_ms = -1;
    cfg->init_ms = 900;
    cfg->memory_mb = 812;
    cfg->time_scale = 1.0;
    faults_none(&cfg->fault);
    cfg->fault_spec = sim_strdup("none");
}

void enc_config_free(EncoderConfig* cfg) {
    free(cfg->name);
    free(cfg->fault_spec);
    free(cfg->trace_path);
    memset(cfg, 0, sizeof *cfg);
}

double enc_config_encode_ms(const EncoderConfig* cfg) {
    if (cfg->encode_ms >= 0) return cfg->encode_ms;
    return 2000.0 * ((double)cfg->width * cfg->height) / (448.0 * 448.0);
}

const char* enc_type_name(rknn_tensor_type type) {
    switch (type) {
        case RKNN_TENSOR_FLOAT32: return "FP32";
        case RKNN_TENSOR_FLOAT16: return "FP16";
        case RKNN_TENSOR_INT8: return "INT8";
        case RKNN_TENSOR_UINT8: return "UINT8";
        default: return "OTHER";
    }
}

const char* enc_format_name(rknn_tensor_format fmt) {
    switch (fmt) {
        case RKNN_TENSOR_NCHW: return "NCHW";
        case RKNN_TENSOR_NHWC: return "NHWC";
        case RKNN_TENSOR_NC1HWC2: return "NC1HWC2";
        default: return "UNDEFINED";
    }
}

static int parse_faults(const char* spec, EncoderFaults* out, char* err, size_t errlen) {
    EncoderFaults f;
    faults_none(&f);
    char* copy = sim_strdup(spec ? spec : "");
    int rc = 0;
    char* save = NULL;
    for (char* item = strtok_r(copy, ", \t", &save); item && rc == 0; item = strtok_r(NULL, ", \t", &save)) {
        if (strcmp(item, "none") == 0) {
        } else if (strcmp(item, "init_fail") == 0) {
            f.init_fail = 1;
        } else if (strcmp(item, "run_error") == 0) {
            f.run_error = 1;
        } else if (strncmp(item, "run_error_after=", 16) == 0) {
            rc = sim_parse_int(item + 16, &f.run_error_after) || f.run_error_after < 0 ? -1 : 0;
        } else if (strncmp(item, "slow_run=", 9) == 0) {
            rc = sim_parse_double(item + 9, &f.slow_run) || f.slow_run < 0 ? -1 : 0;
        } else if (strncmp(item, "max_contexts=", 13) == 0) {
            rc = sim_parse_int(item + 13, &f.max_contexts) || f.max_contexts < 0 ? -1 : 0;
        } else {
            rc = -1;
        }
        if (rc) {
            snprintf(err, errlen,
                     "bad fault '%s' (none, init_fail, run_error, run_error_after=N, slow_run=F, max_contexts=N)",
                     item);
        }
    }
    free(copy);
    if (rc == 0) *out = f;
    return rc;
}

static int parse_type(const char* s, rknn_tensor_type* out) {
    if (strcmp(s, "FP16") == 0) *out = RKNN_TENSOR_FLOAT16;
    else if (strcmp(s, "FP32") == 0) *out = RKNN_TENSOR_FLOAT32;
    else if (strcmp(s, "UINT8") == 0) *out = RKNN_TENSOR_UINT8;
    else if (strcmp(s, "INT8") == 0) *out = RKNN_TENSOR_INT8;
    else return -1;
    return 0;
}

/* Takes ownership of value. */
static int apply_key(EncoderConfig* cfg, const char* key, char* value, char* err, size_t errlen) {
    int rc = 0;
    double d;
    if (strcmp(key, "name") == 0) {
        free(cfg->name);
        cfg->name = value;
        return 0;
    } else if (strcmp(key, "trace") == 0) {
        free(cfg->trace_path);
        cfg->trace_path = value[0] ? value : NULL;
        if (!value[0]) free(value);
        return 0;
    } else if (strcmp(key, "fault") == 0) {
        rc = parse_faults(value, &cfg->fault, err, errlen);
        if (rc == 0) {
            free(cfg->fault_spec);
            cfg->fault_spec = value;
            return 0;
        }
    } else if (strcmp(key, "input_width") == 0) {
        rc = sim_parse_int(value, &cfg->width) || cfg->width <= 0 ? -1 : 0;
    } else if (strcmp(key, "input_height") == 0) {
        rc = sim_parse_int(value, &cfg->height) || cfg->height <= 0 ? -1 : 0;
    } else if (strcmp(key, "input_channels") == 0) {
        rc = sim_parse_int(value, &cfg->channels) || cfg->channels <= 0 || cfg->channels > 4 ? -1 : 0;
    } else if (strcmp(key, "input_format") == 0) {
        if (strcmp(value, "NHWC") == 0) cfg->input_format = RKNN_TENSOR_NHWC;
        else if (strcmp(value, "NCHW") == 0) cfg->input_format = RKNN_TENSOR_NCHW;
        else rc = -1;
    } else if (strcmp(key, "input_type") == 0) {
        rc = parse_type(value, &cfg->input_type);
    } else if (strcmp(key, "output_type") == 0) {
        rc = parse_type(value, &cfg->output_type) ||
                     (cfg->output_type != RKNN_TENSOR_FLOAT16 && cfg->output_type != RKNN_TENSOR_FLOAT32) ? -1 : 0;
    } else if (strcmp(key, "image_tokens") == 0) {
        rc = sim_parse_int(value, &cfg->image_tokens) || cfg->image_tokens <= 0 ? -1 : 0;
    } else if (strcmp(key, "embed_dim") == 0) {
        rc = sim_parse_int(value, &cfg->embed_dim) || cfg->embed_dim <= 0 ? -1 : 0;
    } else if (strcmp(key, "outputs") == 0) {
        rc = sim_parse_int(value, &cfg->outputs) || cfg->outputs < 1 || cfg->outputs > 16 ? -1 : 0;
    } else if (strcmp(key, "output_dims") == 0) {
        rc = sim_parse_int(value, &cfg->output_dims) || (cfg->output_dims != 2 && cfg->output_dims != 3) ? -1 : 0;
    } else if (strcmp(key, "encode_ms") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->encode_ms = rc ? cfg->encode_ms : d;
    } else if (strcmp(key, "init_ms") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->init_ms = rc ? cfg->init_ms : d;
    } else if (strcmp(key, "memory_mb") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->memory_mb = rc ? cfg->memory_mb : d;
    } else if (strcmp(key, "time_scale") == 0) {
        rc = sim_parse_double(value, &d) || d < 0 ? -1 : 0;
        cfg->time_scale = rc ? cfg->time_scale : d;
    } else {
        fprintf(stderr, "W RKNN: rknn-sim: ignoring unknown model key '%s'\n", key);
    }
    if (rc && err[0] == '\0') snprintf(err, errlen, "bad value for '%s': '%s'", key, value);
    free(value);
    return rc;
}

static int apply_key_fn(void* cfg, const char* key, char* value, char* err, size_t errlen) {
    return apply_key(cfg, key, value, err, errlen);
}

int enc_config_parse(EncoderConfig* cfg, const char* text, size_t len, const char* origin, char* err, size_t errlen) {
    err[0] = '\0';
    int rc = sim_keyfile_parse(text, len, RKNN_SIM_MODEL_MAGIC, origin, false, apply_key_fn, cfg, err, errlen);
    if (rc == -2) {
        snprintf(err, errlen, "%s is not a simulated encoder: its first line must be \"%s\"", origin,
                 RKNN_SIM_MODEL_MAGIC);
        return -2;
    }
    if (rc) return rc;
    if ((long)cfg->width * cfg->height * cfg->channels > MAX_ELEMENTS ||
        (long)cfg->image_tokens * cfg->embed_dim > MAX_ELEMENTS) {
        snprintf(err, errlen, "%s: tensors larger than the simulator allows (%ld elements)", origin, MAX_ELEMENTS);
        return -1;
    }
    if (!cfg->name) cfg->name = sim_file_stem(origin);
    return 0;
}

int enc_config_load(EncoderConfig* cfg, const char* path, char* err, size_t errlen) {
    size_t len;
    char* text = sim_read_file(path, &len);
    if (!text) {
        snprintf(err, errlen, "failed to open rknn model file %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = enc_config_parse(cfg, text, len, path, err, errlen);
    free(text);
    return rc;
}

const char* enc_env_trace_path(void) {
    const char* t = getenv("RKNN_SIM_TRACE");
    return t && *t ? t : NULL;
}

int enc_config_apply_env(EncoderConfig* cfg, char* err, size_t errlen) {
    /* one knob for the whole simulated NPU: the RKLLM simulator's time scale applies unless overridden */
    const char* ts = getenv("RKNN_SIM_TIME_SCALE");
    if (!ts || !*ts) ts = getenv("RKLLM_SIM_TIME_SCALE");
    if (ts && *ts) {
        double d;
        if (sim_parse_double(ts, &d) || d < 0) {
            snprintf(err, errlen, "bad time scale '%s'", ts);
            return -1;
        }
        cfg->time_scale = d;
    }
    const char* fault = getenv("RKNN_SIM_FAULT");
    if (fault && *fault) {
        if (parse_faults(fault, &cfg->fault, err, errlen)) return -1;
        free(cfg->fault_spec);
        cfg->fault_spec = sim_strdup(fault);
    }
    const char* trace = enc_env_trace_path();
    if (trace) {
        free(cfg->trace_path);
        cfg->trace_path = sim_strdup(trace);
    }
    return 0;
}
