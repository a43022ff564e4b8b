/*
 * The simulated encoder model file ("#rknn-sim 1" + "key: value" lines, read by rknn_init from a path
 * or from memory) and the environment overrides (RKNN_SIM_TIME_SCALE, RKNN_SIM_FAULT, RKNN_SIM_TRACE).
 * Format documented in docs/simulated-runtime.md ("The simulated RKNN runtime").
 */
#ifndef RKNN_SIM_ENCODER_FILE_H
#define RKNN_SIM_ENCODER_FILE_H

#include <stddef.h>

#include "common.h"
#include "rknn_api.h"

#define RKNN_SIM_MODEL_MAGIC "#rknn-sim 1"

typedef struct {
    int init_fail;       /* rknn_init fails (RKNN_ERR_FAIL) */
    int run_error;       /* every rknn_run fails (RKNN_ERR_FAIL) */
    int run_error_after; /* >= 0: the runs after the first N fail; -1 off */
    double slow_run;     /* run time factor (1 = normal) */
    int max_contexts;    /* >= 0: rknn_init fails (out of NPU memory) while this many contexts live; -1 off */
} EncoderFaults;

typedef struct {
    char* name;
    int width, height, channels;
    rknn_tensor_format input_format; /* how the input attribute reports its dims: NHWC or NCHW */
    rknn_tensor_type input_type;     /* the model's input tensor type (the caller may feed UINT8 or FLOAT32) */
    int image_tokens;
    int embed_dim;                   /* per output */
    int outputs;
    int output_dims;                 /* 2: [tokens, embed]; 3: [1, tokens, embed] */
    rknn_tensor_type output_type;    /* what want_float=0 returns: FLOAT16 or FLOAT32 */
    double encode_ms;                /* one rknn_run on all three cores; < 0 = from the input size */
    double init_ms;
    double memory_mb;
    double time_scale;
    EncoderFaults fault;
    char* fault_spec; /* as given, for the trace */
    char* trace_path; /* NULL = no trace */
} EncoderConfig;

SIM_HIDDEN void enc_config_defaults(EncoderConfig* cfg);
/* Parses a model file's text over the defaults. Returns 0, or -1 with a message in err. */
SIM_HIDDEN int enc_config_parse(EncoderConfig* cfg, const char* text, size_t len, const char* origin, char* err,
                                size_t errlen);
/* Reads and parses a model file. Returns 0, -1 (cannot read: err), or -2 (not a simulated model: err). */
SIM_HIDDEN int enc_config_load(EncoderConfig* cfg, const char* path, char* err, size_t errlen);
/* RKNN_SIM_TIME_SCALE (else RKLLM_SIM_TIME_SCALE), RKNN_SIM_FAULT, RKNN_SIM_TRACE. Returns 0 or -1 (err). */
SIM_HIDDEN int enc_config_apply_env(EncoderConfig* cfg, char* err, size_t errlen);
SIM_HIDDEN const char* enc_env_trace_path(void);
SIM_HIDDEN void enc_config_free(EncoderConfig* cfg);
/* encode_ms, or when not given 2000 ms scaled by the input's pixels relative to 448 x 448. */
SIM_HIDDEN double enc_config_encode_ms(const EncoderConfig* cfg);
SIM_HIDDEN const char* enc_type_name(rknn_tensor_type type);
SIM_HIDDEN const char* enc_format_name(rknn_tensor_format fmt);

#endif
