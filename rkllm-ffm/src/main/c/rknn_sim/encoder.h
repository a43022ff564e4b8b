/*
 * One simulated RKNN context (an encoder model loaded by rknn_init) and the process-wide registry
 * that maps rknn_context values to them. Contexts are numbered from 1, so 0 or a stale value is
 * answered with RKNN_ERR_CTX_INVALID instead of a crash. Locking: the registry lock guards the list
 * and the reference counts; a context's own lock serialises the calls on it (the real runtime wants
 * one thread per context anyway); rknn_destroy waits until no other call holds the context.
 */
#ifndef RKNN_SIM_ENCODER_H
#define RKNN_SIM_ENCODER_H

#include <pthread.h>
#include <stdint.h>

#include "encoder_file.h"
#include "trace.h"

/* A buffer rknn_outputs_get handed out (is_prealloc 0): freed by rknn_outputs_release only. */
typedef struct LiveOutput {
    void* buf;
    struct LiveOutput* next;
} LiveOutput;

typedef struct SimEncoder {
    uint64_t id;
    EncoderConfig cfg;
    rknn_core_mask core_mask;
    pthread_mutex_t lock;
    int refs;         /* (registry lock) calls holding the context */
    int removed;      /* (registry lock) rknn_destroy took it out of the registry */
    /* (lock) the input set by rknn_inputs_set, as RGB bytes in NHWC order */
    unsigned char* pixels;
    uint64_t input_digest;
    double input_mean[4];
    /* (lock) the outputs of the last run: outputs x image_tokens x embed_dim floats */
    float** outputs;
    int ran;
    int runs;
    int64_t last_run_us;
    LiveOutput* live;
    int live_count;
    SimTrace trace;
    struct SimEncoder* next;
} SimEncoder;

/* Registers a new context (owning cfg, moved in) and returns it, numbered. */
SIM_HIDDEN SimEncoder* enc_register(EncoderConfig* cfg, const SimTrace* trace);
/* The context behind a value with a reference taken, or NULL. Every call pairs it with enc_release. */
SIM_HIDDEN SimEncoder* enc_acquire(rknn_context ctx);
SIM_HIDDEN void enc_release(SimEncoder* e);
/* Takes the context out of the registry, waits for the other calls on it to end, and returns it
 * (NULL if unknown). The caller then frees it with enc_free. */
SIM_HIDDEN SimEncoder* enc_unregister(rknn_context ctx);
SIM_HIDDEN void enc_free(SimEncoder* e);
/* Live contexts (fault max_contexts). */
SIM_HIDDEN int enc_live_count(void);
/* The next context number, also for failed inits' trace lines. */
SIM_HIDDEN uint64_t enc_next_id(void);

/* Bytes of the model's input tensor when fed with `type` (UINT8, FLOAT16, FLOAT32; 0 for others). */
SIM_HIDDEN uint64_t enc_input_bytes(const EncoderConfig* cfg, rknn_tensor_type type);
/* Converts a caller's input (NHWC or NCHW; UINT8, FLOAT16 or FLOAT32 values 0..255) to RGB bytes in
 * NHWC order, and sets the digest and mean of the context's input. */
SIM_HIDDEN void enc_take_input(SimEncoder* e, const void* buf, rknn_tensor_type type, rknn_tensor_format fmt);
/* The run: deterministic outputs from the input's digest. */
SIM_HIDDEN void enc_compute_outputs(SimEncoder* e);
/* FNV-1a 64 of output j's floats; of all outputs interleaved token by token (what a binding hands to RKLLM). */
SIM_HIDDEN uint64_t enc_output_digest(const SimEncoder* e, int j);
SIM_HIDDEN uint64_t enc_embedding_digest(const SimEncoder* e);
SIM_HIDDEN uint16_t enc_float_to_half(float f);
SIM_HIDDEN float enc_half_to_float(uint16_t h);

#endif
