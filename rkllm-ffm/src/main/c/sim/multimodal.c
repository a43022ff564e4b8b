/* Multimodal input: see multimodal.h and docs/simulated-runtime.md ("Multimodal input"). */
#include "multimodal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle.h"
#include "tokenizer.h"

#define IMAGE_TAG "<image>"

static size_t count_tags(const char* prompt) {
    size_t n = 0;
    for (const char* p = strstr(prompt, IMAGE_TAG); p; p = strstr(p + strlen(IMAGE_TAG), IMAGE_TAG)) n++;
    return n;
}

/* The first reason the input is refused, in the order the checks are documented. */
static void check(SimImages* im, const char* prompt, const void* embed, size_t n_video, const SimHandle* h) {
    size_t tags = prompt ? count_tags(prompt) : 0;
    if (!prompt) {
        snprintf(im->error, sizeof im->error, "multimodal_input.prompt is NULL");
    } else if (h->cfg.image_embed_dim <= 0) {
        snprintf(im->error, sizeof im->error, "the model %s takes no image input (image_embed_dim is not set)",
                 h->cfg.name ? h->cfg.name : "");
    } else if (im->n_image == 0 || im->n_image_tokens == 0) {
        /* the real runtime's wording (rknn-llm#261) */
        snprintf(im->error, sizeof im->error, "The n_image/n_image_token of multimodal_input is not set");
    } else if (!embed) {
        snprintf(im->error, sizeof im->error, "image_embed of multimodal_input is NULL");
    } else if (!im->start || !im->end || !im->content) {
#if RKLLM_ABI_MINOR == 2
        snprintf(im->error, sizeof im->error,
                 "img_start, img_end and img_content must be set in RKLLMParam at init for multimodal input");
#else
        snprintf(im->error, sizeof im->error,
                 "image_start, image_end and image_content must be set for multimodal input");
#endif
    } else if (tags != im->n_image) {
        snprintf(im->error, sizeof im->error, "the prompt has %zu <image> tag(s) but n_image is %zu", tags,
                 im->n_image);
    } else if (n_video != 0) {
        snprintf(im->error, sizeof im->error, "video input is not simulated (n_video %zu)", n_video);
    }
}

void sim_images_snapshot(SimImages* im, long long* input_tokens, const RKLLMInput* in, const SimHandle* h) {
    memset(im, 0, sizeof *im);
    if (in->input_type != RKLLM_INPUT_MULTIMODAL) return;
    const RKLLMMultiModalInput* m = &in->multimodal_input;
    im->present = 1;
    im->embed_dim = h->cfg.image_embed_dim > 0 ? (size_t)h->cfg.image_embed_dim : 0;
#if RKLLM_ABI_MINOR == 2
    const float* embed = m->image_embed;
    im->n_image = m->n_image;
    im->n_image_tokens = m->n_image_tokens;
    im->image_width = m->image_width;
    im->image_height = m->image_height;
    im->start = sim_strdup(h->param.img_start);
    im->end = sim_strdup(h->param.img_end);
    im->content = sim_strdup(h->param.img_content);
    size_t n_video = 0;
#else
    const float* embed = m->image.image_embed;
    im->n_image = m->image.n_image;
    im->n_image_tokens = m->image.n_image_tokens;
    im->image_width = m->image.image_width;
    im->image_height = m->image.image_height;
    im->start = sim_strdup(m->image.image_start);
    im->end = sim_strdup(m->image.image_end);
    im->content = sim_strdup(m->image.image_content);
    size_t n_video = m->video.n_video;
#endif
    check(im, m->prompt, embed, n_video, h);
    if (im->error[0]) return;
    /* Read every float the runtime is entitled to read, and not one more: a caller that passes a
     * shorter buffer shows up under valgrind, one that passes the wrong images shows up in the digests. */
    size_t per_image = im->n_image_tokens * im->embed_dim;
    im->digests = sim_xcalloc(im->n_image, sizeof(uint64_t));
    for (size_t i = 0; i < im->n_image; i++) {
        im->digests[i] = sim_fnv1a(SIM_FNV_SEED, embed + i * per_image, per_image * sizeof(float));
    }
    im->floats_read = (long long)(per_image * im->n_image);
    *input_tokens = (long long)(im->n_image * im->n_image_tokens);
}

void sim_images_free(SimImages* im) {
    free(im->start);
    free(im->end);
    free(im->content);
    free(im->digests);
    memset(im, 0, sizeof *im);
}

void sim_images_expand(const SimImages* im, StrBuf* counted, StrBuf* shown) {
    const char* body = sb_cstr(counted);
    if (!im->present || im->error[0]) {
        sb_append(shown, body);
        return;
    }
    StrBuf plain;
    sb_init(&plain);
    sb_append(&plain, "");
    const char* p = body;
    for (const char* at = strstr(p, IMAGE_TAG); at; at = strstr(p, IMAGE_TAG)) {
        sb_append_n(&plain, p, (size_t)(at - p));
        sb_append_n(shown, p, (size_t)(at - p));
        sb_append(&plain, im->start);
        sb_append(&plain, im->end);
        sb_append(shown, im->start);
        for (size_t t = 0; t < im->n_image_tokens; t++) sb_append(shown, im->content);
        sb_append(shown, im->end);
        p = at + strlen(IMAGE_TAG);
    }
    sb_append(&plain, p);
    sb_append(shown, p);
    sb_free(counted);
    *counted = plain;
}

uint64_t sim_images_seed(const SimImages* im, uint64_t seed) {
    if (!im->digests) return seed;
    return sim_fnv1a(seed, im->digests, im->n_image * sizeof(uint64_t));
}

void sim_images_trace(const SimImages* im, JsonWriter* w) {
    if (!im->present) return;
    JsonWriter o;
    jw_key(w, "images");
    jw_begin(&o, w->sb);
    jw_int(&o, "n_image", (long long)im->n_image);
    jw_int(&o, "n_image_tokens", (long long)im->n_image_tokens);
    jw_int(&o, "image_width", (long long)im->image_width);
    jw_int(&o, "image_height", (long long)im->image_height);
    jw_str(&o, "image_start", im->start);
    jw_str(&o, "image_end", im->end);
    jw_str(&o, "image_content", im->content);
    jw_int(&o, "embed_dim", (long long)im->embed_dim);
    jw_int(&o, "floats_read", im->floats_read);
    jw_key(&o, "digests");
    sb_append_char(w->sb, '[');
    for (size_t i = 0; im->digests && i < im->n_image; i++) {
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)im->digests[i]);
        if (i) sb_append_char(w->sb, ',');
        json_append_string(w->sb, hex, 16);
    }
    sb_append_char(w->sb, ']');
    jw_end(&o);
}
