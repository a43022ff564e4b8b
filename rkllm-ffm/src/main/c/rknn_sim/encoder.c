/* Simulated RKNN contexts: registry, input conversion, deterministic outputs. See encoder.h. */
#include "encoder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "tokenizer.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t registry_cond = PTHREAD_COND_INITIALIZER;
static SimEncoder* registry;
static int live;
static uint64_t last_id;

uint64_t enc_next_id(void) {
    return __atomic_add_fetch(&last_id, 1, __ATOMIC_SEQ_CST);
}

SimEncoder* enc_register(EncoderConfig* cfg, const SimTrace* trace) {
    SimEncoder* e = sim_xcalloc(1, sizeof(SimEncoder));
    e->cfg = *cfg;
    memset(cfg, 0, sizeof *cfg);
    e->trace = *trace;
    e->id = (uint64_t)trace->handle_id;
    e->core_mask = RKNN_NPU_CORE_AUTO;
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_lock(&registry_lock);
    e->next = registry;
    registry = e;
    live++;
    pthread_mutex_unlock(&registry_lock);
    return e;
}

static SimEncoder* find(rknn_context ctx) {
    for (SimEncoder* e = registry; e; e = e->next) {
        if (e->id == ctx) return e;
    }
    return NULL;
}

SimEncoder* enc_acquire(rknn_context ctx) {
    pthread_mutex_lock(&registry_lock);
    SimEncoder* e = find(ctx);
    if (e) e->refs++;
    pthread_mutex_unlock(&registry_lock);
    return e;
}

void enc_release(SimEncoder* e) {
    pthread_mutex_lock(&registry_lock);
    e->refs--;
    pthread_cond_broadcast(&registry_cond);
    pthread_mutex_unlock(&registry_lock);
}

SimEncoder* enc_unregister(rknn_context ctx) {
    pthread_mutex_lock(&registry_lock);
    SimEncoder* e = find(ctx);
    if (e) {
        for (SimEncoder** p = &registry; *p; p = &(*p)->next) {
            if (*p == e) {
                *p = e->next;
                break;
            }
        }
        live--;
        while (e->refs > 0) pthread_cond_wait(&registry_cond, &registry_lock);
    }
    pthread_mutex_unlock(&registry_lock);
    return e;
}

int enc_live_count(void) {
    pthread_mutex_lock(&registry_lock);
    int n = live;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

static void free_outputs(SimEncoder* e) {
    if (!e->outputs) return;
    for (int j = 0; j < e->cfg.outputs; j++) free(e->outputs[j]);
    free(e->outputs);
    e->outputs = NULL;
}

void enc_free(SimEncoder* e) {
    /* Buffers still handed out are not freed: releasing them is the caller's job (valgrind shows the leak). */
    for (LiveOutput* l = e->live; l;) {
        LiveOutput* next = l->next;
        free(l);
        l = next;
    }
    free_outputs(e);
    free(e->pixels);
    sim_trace_close(&e->trace);
    pthread_mutex_destroy(&e->lock);
    enc_config_free(&e->cfg);
    free(e);
}

static size_t type_size(rknn_tensor_type type) {
    switch (type) {
        case RKNN_TENSOR_UINT8: return 1;
        case RKNN_TENSOR_FLOAT16: return 2;
        case RKNN_TENSOR_FLOAT32: return 4;
        default: return 0;
    }
}

uint64_t enc_input_bytes(const EncoderConfig* cfg, rknn_tensor_type type) {
    return (uint64_t)cfg->width * cfg->height * cfg->channels * type_size(type);
}

static unsigned char to_byte(double v) {
    if (!(v > 0)) return 0;
    if (v >= 255) return 255;
    return (unsigned char)lround(v);
}

void enc_take_input(SimEncoder* e, const void* buf, rknn_tensor_type type, rknn_tensor_format fmt) {
    const EncoderConfig* c = &e->cfg;
    size_t hw = (size_t)c->width * c->height;
    size_t n = hw * c->channels;
    if (!e->pixels) e->pixels = sim_xmalloc(n);
    for (size_t i = 0; i < n; i++) {
        /* i is the NHWC position: pixel i / channels, channel i % channels */
        size_t src = fmt == RKNN_TENSOR_NCHW ? (i % c->channels) * hw + i / c->channels : i;
        double v;
        if (type == RKNN_TENSOR_UINT8) v = ((const unsigned char*)buf)[src];
        else if (type == RKNN_TENSOR_FLOAT16) v = enc_half_to_float(((const uint16_t*)buf)[src]);
        else v = ((const float*)buf)[src];
        e->pixels[i] = to_byte(v);
    }
    e->input_digest = sim_fnv1a(SIM_FNV_SEED, e->pixels, n);
    double sums[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) sums[i % c->channels] += e->pixels[i];
    for (int ch = 0; ch < c->channels; ch++) e->input_mean[ch] = sums[ch] / (double)hw;
}

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void enc_compute_outputs(SimEncoder* e) {
    const EncoderConfig* c = &e->cfg;
    size_t per_output = (size_t)c->image_tokens * c->embed_dim;
    if (!e->outputs) {
        e->outputs = sim_xcalloc((size_t)c->outputs, sizeof(float*));
        for (int j = 0; j < c->outputs; j++) e->outputs[j] = sim_xmalloc(per_output * sizeof(float));
    }
    for (int j = 0; j < c->outputs; j++) {
        uint64_t base = splitmix64(e->input_digest ^ ((uint64_t)(j + 1) << 56));
        for (size_t i = 0; i < per_output; i++) {
            /* a value in [-1, 1) with 2^-11 steps: exact in FP16, so want_float 0 and 1 agree */
            uint64_t r = splitmix64(base + i);
            e->outputs[j][i] = (float)((int)(r >> 53) - 1024) / 1024.0f;
        }
    }
}

uint64_t enc_output_digest(const SimEncoder* e, int j) {
    size_t per_output = (size_t)e->cfg.image_tokens * e->cfg.embed_dim;
    return sim_fnv1a(SIM_FNV_SEED, e->outputs[j], per_output * sizeof(float));
}

uint64_t enc_embedding_digest(const SimEncoder* e) {
    uint64_t h = SIM_FNV_SEED;
    size_t dim = (size_t)e->cfg.embed_dim;
    for (int t = 0; t < e->cfg.image_tokens; t++) {
        for (int j = 0; j < e->cfg.outputs; j++) h = sim_fnv1a(h, e->outputs[j] + (size_t)t * dim, dim * sizeof(float));
    }
    return h;
}

uint16_t enc_float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    int exp = (int)((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
    if (exp >= 31) return (uint16_t)(sign | 0x7c00);
    if (exp <= 0) {
        if (exp < -10) return sign;
        mant |= 0x800000;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t half = mant >> shift;
        if ((mant >> (shift - 1)) & 1) half++; /* round half up */
        return (uint16_t)(sign | half);
    }
    uint16_t h = (uint16_t)(sign | (exp << 10) | (mant >> 13));
    if (mant & 0x1000) h++; /* round half up (carries into the exponent as it should) */
    return h;
}

float enc_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    int exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    float f;
    if (exp == 0) {
        f = ldexpf((float)mant, -24);
    } else if (exp == 31) {
        f = mant ? NAN : INFINITY;
    } else {
        f = ldexpf((float)(mant | 0x400), exp - 25);
    }
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    x |= sign;
    memcpy(&f, &x, sizeof f);
    return f;
}
