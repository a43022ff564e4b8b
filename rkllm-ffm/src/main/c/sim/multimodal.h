/*
 * RKLLM_INPUT_MULTIMODAL: what a run received (checked and read when the run is submitted, like the
 * rest of the request snapshot), how its `<image>` tags are expanded, and the trace fields that make
 * the received embeddings observable. Rules in docs/simulated-runtime.md ("Multimodal input").
 */
#ifndef RKLLM_SIM_MULTIMODAL_H
#define RKLLM_SIM_MULTIMODAL_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "json.h"
#include "strbuf.h"

struct SimHandle;

typedef struct {
    int present;           /* the run's input_type was MULTIMODAL */
    char error[256];       /* the reason the runtime refuses the input; "" when valid */
    size_t n_image;
    size_t n_image_tokens;
    size_t image_width;
    size_t image_height;
    size_t embed_dim;      /* floats per image token: the model's image_embed_dim */
    char* start;           /* tags: 1.2 from RKLLMParam at init, 1.3 from the request */
    char* end;
    char* content;
    uint64_t* digests;     /* per image: FNV-1a 64 over its floats' bytes; NULL unless valid */
    long long floats_read; /* n_image * n_image_tokens * embed_dim when valid, else 0 */
} SimImages;

/* Checks a MULTIMODAL input against the handle's model and, when valid, reads exactly
 * n_image * n_image_tokens * image_embed_dim floats from image_embed. Nothing is kept of the caller's
 * memory. The image tokens are the request's input_tokens. */
SIM_HIDDEN void sim_images_snapshot(SimImages* im, long long* input_tokens, const RKLLMInput* in,
                                    const struct SimHandle* h);
SIM_HIDDEN void sim_images_free(SimImages* im);

/* For a valid multimodal input: `counted` (the prompt body) gets every `<image>` replaced by the start
 * and end tags (the content tokens are counted as image tokens, not by the tokenizer), and `shown`
 * gets start + content x n_image_tokens + end: the text the model actually prefills. Otherwise
 * `shown` is a copy of `counted`. */
SIM_HIDDEN void sim_images_expand(const SimImages* im, StrBuf* counted, StrBuf* shown);

/* Mixes the image digests into a generation seed (unchanged without images). */
SIM_HIDDEN uint64_t sim_images_seed(const SimImages* im, uint64_t seed);

/* Writes the "images" field of the run trace line (nothing without multimodal input). */
SIM_HIDDEN void sim_images_trace(const SimImages* im, JsonWriter* w);

#endif
