/*
 * Smoke test of the simulated RKNN runtime (librknnrt.so) through its C ABI, the way an image encoder
 * uses it (the official multimodal demo's calls, and their mistakes).
 *
 *   rknn_smoke WORKDIR
 *
 * Writes its model files and the trace (WORKDIR/rknn-trace.jsonl) under WORKDIR; exit status 0 when
 * every check passed. With RKNN_SIM_TIME_SCALE=0 (the valgrind run) the timing checks are skipped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rknn_api.h"

static int failures;
static int checks;
static const char* workdir;
static int zero_time;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static unsigned long long fnv(unsigned long long h, const void* data, size_t len) {
    const unsigned char* b = data;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
#define FNV_SEED 0xcbf29ce484222325ULL

static char* model_file(const char* name, const char* fmt, ...) {
    static char paths[32][512];
    static int next;
    char* path = paths[next++ % 32];
    snprintf(path, 512, "%s/%s.rknn", workdir, name);
    FILE* f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fprintf(f, "#rknn-sim 1\n# encoder for rknn_smoke\ntrace: %s/rknn-trace.jsonl\n", workdir);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    return path;
}

/* 1 if a trace line contains both fragments (b may be NULL). */
static int trace_has(const char* a, const char* b) {
    char path[600];
    snprintf(path, sizeof path, "%s/rknn-trace.jsonl", workdir);
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    char* line = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getline(&line, &cap, f) > 0) found = strstr(line, a) && (!b || strstr(line, b));
    free(line);
    fclose(f);
    return found;
}

/* What the official demo does at init: the encoder's input size and its tokens x width. */
typedef struct {
    rknn_context ctx;
    rknn_input_output_num io;
    rknn_tensor_attr in, out[8];
    int width, height, channels, tokens, embed;
} Encoder;

static int open_encoder(Encoder* enc, const char* path) {
    memset(enc, 0, sizeof *enc);
    int rc = rknn_init(&enc->ctx, (void*)path, 0, 0, NULL);
    if (rc) return rc;
    CHECK(rknn_query(enc->ctx, RKNN_QUERY_IN_OUT_NUM, &enc->io, sizeof enc->io) == 0, "in/out num");
    enc->in.index = 0;
    CHECK(rknn_query(enc->ctx, RKNN_QUERY_INPUT_ATTR, &enc->in, sizeof enc->in) == 0, "input attr");
    for (uint32_t j = 0; j < enc->io.n_output && j < 8; j++) {
        enc->out[j].index = j;
        CHECK(rknn_query(enc->ctx, RKNN_QUERY_OUTPUT_ATTR, &enc->out[j], sizeof enc->out[j]) == 0, "output attr %u", j);
    }
    for (uint32_t i = 0; i + 1 < enc->out[0].n_dims; i++) {
        if (enc->out[0].dims[i] > 1) {
            enc->tokens = (int)enc->out[0].dims[i];
            enc->embed = (int)enc->out[0].dims[i + 1];
            break;
        }
    }
    if (enc->in.fmt == RKNN_TENSOR_NCHW) {
        enc->channels = (int)enc->in.dims[1];
        enc->height = (int)enc->in.dims[2];
        enc->width = (int)enc->in.dims[3];
    } else {
        enc->height = (int)enc->in.dims[1];
        enc->width = (int)enc->in.dims[2];
        enc->channels = (int)enc->in.dims[3];
    }
    return 0;
}

static int set_input(const Encoder* enc, void* buf, uint32_t size, rknn_tensor_type type, rknn_tensor_format fmt) {
    rknn_input in;
    memset(&in, 0, sizeof in);
    in.index = 0;
    in.buf = buf;
    in.size = size;
    in.type = type;
    in.fmt = fmt;
    return rknn_inputs_set(enc->ctx, 1, &in);
}

static unsigned char* picture(const Encoder* enc, unsigned seed) {
    size_t n = (size_t)enc->width * enc->height * enc->channels;
    unsigned char* p = malloc(n);
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 7 + seed * 13 + (i / 97) * seed) % 251);
    return p;
}

/* Runs the encoder on RGB bytes and returns tokens x (outputs x embed) floats, interleaved as the demo
 * does for several outputs; releases every output. */
static float* encode(const Encoder* enc, unsigned char* rgb, int* rc_out) {
    uint32_t bytes = (uint32_t)(enc->width * enc->height * enc->channels);
    int rc = set_input(enc, rgb, bytes, RKNN_TENSOR_UINT8, RKNN_TENSOR_NHWC);
    if (rc == 0) rc = rknn_run(enc->ctx, NULL);
    *rc_out = rc;
    if (rc) return NULL;
    uint32_t n = enc->io.n_output;
    rknn_output outs[8];
    memset(outs, 0, sizeof outs);
    for (uint32_t j = 0; j < n; j++) outs[j].want_float = 1;
    rc = rknn_outputs_get(enc->ctx, n, outs, NULL);
    *rc_out = rc;
    if (rc) return NULL;
    size_t width = (size_t)n * enc->embed;
    float* result = malloc(sizeof(float) * enc->tokens * width);
    for (int t = 0; t < enc->tokens; t++) {
        for (uint32_t j = 0; j < n; j++) {
            CHECK(outs[j].size == (uint32_t)(enc->tokens * enc->embed * 4), "output %u size %u", j, outs[j].size);
            memcpy(result + t * width + j * enc->embed, (float*)outs[j].buf + (size_t)t * enc->embed,
                   sizeof(float) * enc->embed);
        }
    }
    CHECK(rknn_outputs_release(enc->ctx, n, outs) == 0, "release");
    return result;
}

static void test_queries(void) {
    Encoder enc;
    const char* path = model_file("qwen3vl", "time_scale: 0\nname: q3\nimage_tokens: 16\nembed_dim: 32\noutputs: 4\n"
                                  "input_width: 64\ninput_height: 48\n");
    CHECK(open_encoder(&enc, path) == 0 && enc.ctx != 0, "init from a path");
    CHECK(enc.io.n_input == 1 && enc.io.n_output == 4, "1 input, 4 outputs: %u %u", enc.io.n_input, enc.io.n_output);
    CHECK(enc.in.n_dims == 4 && enc.in.dims[0] == 1 && enc.in.fmt == RKNN_TENSOR_NHWC && enc.in.type == RKNN_TENSOR_FLOAT16,
          "input attr NHWC FP16");
    CHECK(enc.width == 64 && enc.height == 48 && enc.channels == 3, "input %dx%dx%d", enc.width, enc.height,
          enc.channels);
    CHECK(enc.in.size == 64u * 48 * 3 * 2 && enc.in.n_elems == 64u * 48 * 3, "input size %u", enc.in.size);
    CHECK(enc.tokens == 16 && enc.embed == 32, "output tokens %d embed %d", enc.tokens, enc.embed);
    CHECK(enc.out[0].n_dims == 2 && enc.out[3].dims[0] == 16 && enc.out[3].type == RKNN_TENSOR_FLOAT16,
          "output attrs");
    CHECK(strcmp(enc.out[0].name, "image_embeds") == 0 && strcmp(enc.out[1].name, "deepstack_0") == 0, "names");
    rknn_sdk_version v;
    CHECK(rknn_query(enc.ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof v) == 0, "sdk version");
    CHECK(strcmp(v.api_version, "2.3.2 (429f97ae6b@2025-04-09T09:09:27)") == 0 && strcmp(v.drv_version, "0.9.8") == 0,
          "versions %s / %s", v.api_version, v.drv_version);
    rknn_tensor_attr bad;
    memset(&bad, 0, sizeof bad);
    bad.index = 4;
    CHECK(rknn_query(enc.ctx, RKNN_QUERY_OUTPUT_ATTR, &bad, sizeof bad) == RKNN_ERR_PARAM_INVALID, "output 4 of 4");
    bad.index = 0;
    CHECK(rknn_query(enc.ctx, RKNN_QUERY_OUTPUT_ATTR, &bad, sizeof bad - 4) == RKNN_ERR_PARAM_INVALID,
          "a wrong struct size is refused");
    CHECK(rknn_query(enc.ctx, RKNN_QUERY_MEM_SIZE, &bad, sizeof bad) == RKNN_ERR_PARAM_INVALID, "unsimulated query");
    CHECK(rknn_set_core_mask(enc.ctx, RKNN_NPU_CORE_0_1_2) == 0, "core mask 0_1_2");
    CHECK(rknn_set_core_mask(enc.ctx, (rknn_core_mask)9) == RKNN_ERR_PARAM_INVALID, "core mask 9");
    CHECK(rknn_destroy(enc.ctx) == 0, "destroy");
    CHECK(rknn_destroy(enc.ctx) == RKNN_ERR_CTX_INVALID, "destroy twice");
    CHECK(rknn_query(enc.ctx, RKNN_QUERY_IN_OUT_NUM, &enc.io, sizeof enc.io) == RKNN_ERR_CTX_INVALID,
          "a destroyed context");
    CHECK(rknn_run(0, NULL) == RKNN_ERR_CTX_INVALID, "context 0");

    /* init from the model's bytes, NCHW and 3-d outputs */
    const char* text = "#rknn-sim 1\ntime_scale: 0\ninput_format: NCHW\noutput_dims: 3\nimage_tokens: 4\nembed_dim: 8\n";
    rknn_context ctx = 0;
    CHECK(rknn_init(&ctx, (void*)text, (uint32_t)strlen(text), 0, NULL) == 0 && ctx, "init from memory");
    rknn_tensor_attr a;
    memset(&a, 0, sizeof a);
    CHECK(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a) == 0 && a.fmt == RKNN_TENSOR_NCHW && a.dims[1] == 3 &&
              a.dims[2] == 448 && a.dims[3] == 448,
          "NCHW input attr");
    memset(&a, 0, sizeof a);
    CHECK(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof a) == 0 && a.n_dims == 3 && a.dims[0] == 1 &&
              a.dims[1] == 4 && a.dims[2] == 8,
          "3-d output attr");
    rknn_destroy(ctx);
}

static void test_encode(void) {
    Encoder enc;
    const char* path = model_file("enc", "time_scale: 0\nimage_tokens: 8\nembed_dim: 16\noutputs: 4\n"
                                  "input_width: 32\ninput_height: 32\n");
    CHECK(open_encoder(&enc, path) == 0, "open");
    size_t bytes = 32 * 32 * 3;
    int rc;
    unsigned char* red = picture(&enc, 1);
    unsigned char* blue = picture(&enc, 2);
    float* a = encode(&enc, red, &rc);
    CHECK(rc == 0 && a, "encode red: %d", rc);
    float* b = encode(&enc, red, &rc);
    float* c = encode(&enc, blue, &rc);
    size_t floats = 8 * 4 * 16;
    CHECK(a && b && memcmp(a, b, floats * sizeof(float)) == 0, "the same picture gives the same embeddings");
    CHECK(a && c && memcmp(a, c, floats * sizeof(float)) != 0, "another picture gives other embeddings");
    /* the trace names the input and what a correct interleaving hands to RKLLM */
    char digest[80];
    snprintf(digest, sizeof digest, "\"input_digest\":\"%016llx\"", fnv(FNV_SEED, red, bytes));
    char embedding[80];
    snprintf(embedding, sizeof embedding, "\"embedding_digest\":\"%016llx\"", fnv(FNV_SEED, a, floats * sizeof(float)));
    CHECK(trace_has(digest, embedding), "trace: %s and %s", digest, embedding);

    /* the same picture as NCHW floats: the runtime converts, the result is the same */
    float* nchw = malloc(bytes * sizeof(float));
    for (size_t i = 0; i < bytes; i++) nchw[(i % 3) * 32 * 32 + i / 3] = red[i];
    CHECK(set_input(&enc, nchw, (uint32_t)(bytes * 4), RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW) == 0, "FP32 NCHW input");
    CHECK(rknn_run(enc.ctx, NULL) == 0, "run");
    rknn_output outs[4];
    memset(outs, 0, sizeof outs);
    for (int j = 0; j < 4; j++) outs[j].want_float = 1;
    CHECK(rknn_outputs_get(enc.ctx, 4, outs, NULL) == 0, "get");
    CHECK(memcmp(outs[1].buf, a + 16, 16 * sizeof(float)) == 0, "output 1, token 0 is the second slice of token 0");
    /* the demo's mistake: release only output 0; three buffers stay live */
    CHECK(rknn_outputs_release(enc.ctx, 1, outs) == 0, "release 1 of 4");
    CHECK(trace_has("\"call\":\"outputs_release\"", "\"freed\":1,\"live_outputs\":3"), "three outputs still live");
    CHECK(rknn_outputs_release(enc.ctx, 3, outs + 1) == 0, "release the rest");
    CHECK(trace_has("\"call\":\"outputs_release\"", "\"freed\":3,\"live_outputs\":0"), "all released");
    free(nchw);

    /* want_float 0: FP16, the same values */
    CHECK(rknn_run(enc.ctx, NULL) == 0, "run again");
    memset(outs, 0, sizeof outs);
    CHECK(rknn_outputs_get(enc.ctx, 4, outs, NULL) == 0 && outs[0].size == 8 * 16 * 2, "FP16 outputs: %u",
          outs[0].size);
    const uint16_t* half = outs[0].buf;
    /* token 0 element 1 of output 0 as FP16, compared with the float */
    float v = a[1];
    uint16_t h = half[1];
    int exp = (h >> 10) & 0x1f;
    float f = exp ? (float)((h & 0x3ff) | 0x400) / 1024.0f * (float)(1 << exp) / 32768.0f
                  : (float)(h & 0x3ff) / 16777216.0f;
    if (h & 0x8000) f = -f;
    CHECK(f == v, "FP16 output %f equals the float output %f", f, v);
    rknn_outputs_release(enc.ctx, 4, outs);

    /* preallocated buffers: written in place, nothing to free */
    float* mine = malloc(4 * 8 * 16 * sizeof(float));
    memset(outs, 0, sizeof outs);
    for (int j = 0; j < 4; j++) {
        outs[j].want_float = 1;
        outs[j].is_prealloc = 1;
        outs[j].buf = mine + j * 8 * 16;
        outs[j].size = 8 * 16 * sizeof(float);
    }
    CHECK(rknn_outputs_get(enc.ctx, 4, outs, NULL) == 0 && outs[2].buf == mine + 2 * 8 * 16, "preallocated");
    CHECK(trace_has("\"is_prealloc\":1", "\"allocated\":0,\"live_outputs\":0"), "nothing allocated");
    CHECK(rknn_outputs_release(enc.ctx, 4, outs) == 0, "release of preallocated outputs");
    outs[0].size = 4;
    CHECK(rknn_outputs_get(enc.ctx, 4, outs, NULL) == RKNN_ERR_PARAM_INVALID, "a too small preallocated buffer");
    free(mine);

    /* the caller's mistakes */
    CHECK(set_input(&enc, red, (uint32_t)bytes - 1, RKNN_TENSOR_UINT8, RKNN_TENSOR_NHWC) == RKNN_ERR_PARAM_INVALID,
          "a wrong input size");
    CHECK(set_input(&enc, red, (uint32_t)bytes, RKNN_TENSOR_INT16, RKNN_TENSOR_NHWC) == RKNN_ERR_PARAM_INVALID,
          "an unsupported input type");
    memset(outs, 0, sizeof outs);
    CHECK(rknn_outputs_get(enc.ctx, 1, outs, NULL) == RKNN_ERR_PARAM_INVALID, "one output of four");
    rknn_destroy(enc.ctx);

    CHECK(open_encoder(&enc, path) == 0, "open a fresh context");
    CHECK(rknn_run(enc.ctx, NULL) == RKNN_ERR_INPUT_INVALID, "run without input");
    memset(outs, 0, sizeof outs);
    CHECK(rknn_outputs_get(enc.ctx, 4, outs, NULL) == RKNN_ERR_OUTPUT_INVALID, "outputs without a run");
    rknn_destroy(enc.ctx);
    free(a);
    free(b);
    free(c);
    free(red);
    free(blue);
}

static void test_faults(void) {
    rknn_context ctx = 99;
    CHECK(rknn_init(&ctx, model_file("fail", "time_scale: 0\nfault: init_fail\n"), 0, 0, NULL) == RKNN_ERR_FAIL &&
              ctx == 0,
          "init_fail");
    char missing[600];
    snprintf(missing, sizeof missing, "%s/missing.rknn", workdir);
    CHECK(rknn_init(&ctx, missing, 0, 0, NULL) == RKNN_ERR_FAIL && ctx == 0, "missing file");
    char other[600];
    snprintf(other, sizeof other, "%s/other.rknn", workdir);
    FILE* f = fopen(other, "w");
    fputs("RKNN\x01 not a simulated model\n", f);
    fclose(f);
    CHECK(rknn_init(&ctx, other, 0, 0, NULL) == RKNN_ERR_MODEL_INVALID, "not a simulated model");
    CHECK(rknn_init(&ctx, model_file("badkey", "time_scale: 0\noutputs: 0\n"), 0, 0, NULL) == RKNN_ERR_FAIL,
          "bad value");

    Encoder enc;
    CHECK(open_encoder(&enc, model_file("flaky", "time_scale: 0\nimage_tokens: 2\nembed_dim: 4\ninput_width: 8\n"
                                        "input_height: 8\nfault: run_error_after=1\n")) == 0, "open flaky");
    unsigned char* p = picture(&enc, 3);
    int rc;
    float* out = encode(&enc, p, &rc);
    CHECK(rc == 0 && out, "first run fine");
    free(out);
    CHECK(encode(&enc, p, &rc) == NULL && rc == RKNN_ERR_FAIL, "second run fails: %d", rc);
    rknn_output outs[1];
    memset(outs, 0, sizeof outs);
    outs[0].want_float = 1;
    CHECK(rknn_outputs_get(enc.ctx, 1, outs, NULL) == 0, "the last good outputs remain");
    rknn_outputs_release(enc.ctx, 1, outs);
    rknn_destroy(enc.ctx);
    free(p);

    /* max_contexts: out of NPU memory while another context lives */
    const char* full = model_file("full", "time_scale: 0\nfault: max_contexts=1\n");
    rknn_context first = 0, second = 0;
    CHECK(rknn_init(&first, model_file("plain", "time_scale: 0\n"), 0, 0, NULL) == 0, "first context");
    CHECK(rknn_init(&second, (void*)full, 0, 0, NULL) == RKNN_ERR_MALLOC_FAIL && second == 0, "no room");
    rknn_destroy(first);
    CHECK(rknn_init(&second, (void*)full, 0, 0, NULL) == 0 && second, "room once the first is gone");
    rknn_destroy(second);
}

static void test_timing(void) {
    if (zero_time) return;
    Encoder enc;
    CHECK(open_encoder(&enc, model_file("timed", "init_ms: 0\nencode_ms: 60\nimage_tokens: 2\nembed_dim: 4\n"
                                        "input_width: 8\ninput_height: 8\n")) == 0, "open timed");
    unsigned char* p = picture(&enc, 4);
    int rc;
    CHECK(rknn_set_core_mask(enc.ctx, RKNN_NPU_CORE_0_1_2) == 0, "three cores");
    double t0 = now_ms();
    free(encode(&enc, p, &rc));
    double three = now_ms() - t0;
    rknn_perf_run perf;
    CHECK(rknn_query(enc.ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof perf) == 0 && perf.run_duration >= 55000,
          "perf run %lld us", (long long)perf.run_duration);
    CHECK(rknn_set_core_mask(enc.ctx, RKNN_NPU_CORE_AUTO) == 0, "auto: one core");
    t0 = now_ms();
    free(encode(&enc, p, &rc));
    double one = now_ms() - t0;
    CHECK(three >= 55 && one >= 170, "three cores %.0f ms, one core %.0f ms", three, one);
    rknn_destroy(enc.ctx);
    free(p);
    /* the default timing: 2 s for 448 x 448, scaled by the pixels */
    CHECK(trace_has("\"model\":\"q3\"", "\"encode_ms\":30.61224"), "64x48 defaults to 2000 * 3072 / 200704 ms");
}

typedef struct {
    int index;
    int fails;
} Job;

static void* thread_main(void* arg) {
    Job* j = arg;
    char name[32];
    snprintf(name, sizeof name, "thread%d", j->index);
    Encoder enc;
    if (open_encoder(&enc, model_file(name, "time_scale: 0\nimage_tokens: 4\nembed_dim: 8\noutputs: 2\n"
                                      "input_width: 16\ninput_height: 16\n")) != 0) {
        j->fails++;
        return NULL;
    }
    unsigned char* p = picture(&enc, (unsigned)j->index);
    int rc;
    float* first = encode(&enc, p, &rc);
    for (int i = 0; i < 20 && first; i++) {
        float* again = encode(&enc, p, &rc);
        if (!again || memcmp(first, again, 4 * 2 * 8 * sizeof(float)) != 0) j->fails++;
        free(again);
    }
    free(first);
    free(p);
    rknn_destroy(enc.ctx);
    return NULL;
}

static void test_threads(void) {
    pthread_t t[2];
    Job jobs[2] = {{1, 0}, {2, 0}};
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, thread_main, &jobs[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(jobs[0].fails == 0 && jobs[1].fails == 0, "two contexts on two threads: %d + %d", jobs[0].fails,
          jobs[1].fails);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
        return 2;
    }
    workdir = argv[1];
    const char* ts = getenv("RKNN_SIM_TIME_SCALE");
    zero_time = ts && ts[0] && atof(ts) == 0.0;
    char trace[600];
    snprintf(trace, sizeof trace, "%s/rknn-trace.jsonl", workdir);
    unlink(trace);
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_queries();
    test_encode();
    test_faults();
    test_timing();
    test_threads();
    printf("rknn_smoke: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
