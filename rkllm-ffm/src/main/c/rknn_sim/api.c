/*
 * The exported C API of librknnrt.so (rknn_api.h), simulated for image encoders: only these eight
 * functions are exported. Behaviour is documented in docs/simulated-runtime.md ("The simulated RKNN
 * runtime").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "clock.h"
#include "encoder.h"
#include "json.h"
#include "rknn_api.h"
#include "strbuf.h"
#include "trace.h"

/* What librknnrt 2.3.2 reports (RKNN_QUERY_SDK_VERSION) on an RK3588 with driver 0.9.8. */
static const char API_VERSION[] = "2.3.2 (429f97ae6b@2025-04-09T09:09:27)";
static const char DRV_VERSION[] = "0.9.8";
#define NPU_CORES 3

/* One log line as the runtime prints them: "I RKNN: [hh:mm:ss.mmm] text" on stderr. */
static void rknn_log(char level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void rknn_log(char level, const char* fmt, ...) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    char line[1024];
    int n = snprintf(line, sizeof line, "%c RKNN: [%02d:%02d:%02d.%03ld] ", level, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     (long)(tv.tv_usec / 1000));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static void hex(char out[17], uint64_t v) {
    snprintf(out, 17, "%016llx", (unsigned long long)v);
}

static int cores_of(rknn_core_mask mask) {
    switch (mask) {
        case RKNN_NPU_CORE_0_1: return 2;
        case RKNN_NPU_CORE_0_1_2:
        case RKNN_NPU_CORE_ALL: return NPU_CORES;
        default: return 1; /* AUTO: one core, chosen by the runtime */
    }
}

static void trace_init(const SimTrace* t, const char* path, const EncoderConfig* c, int rc, const char* error) {
    SimTraceLine line;
    if (!sim_trace_line_start(&line, t, "init")) return;
    JsonWriter* w = &line.w;
    jw_str(w, "model_path", path);
    if (c) {
        jw_str(w, "model", c->name);
        jw_int(w, "input_width", c->width);
        jw_int(w, "input_height", c->height);
        jw_int(w, "input_channels", c->channels);
        jw_str(w, "input_format", enc_format_name(c->input_format));
        jw_str(w, "input_type", enc_type_name(c->input_type));
        jw_int(w, "image_tokens", c->image_tokens);
        jw_int(w, "embed_dim", c->embed_dim);
        jw_int(w, "outputs", c->outputs);
        jw_num(w, "encode_ms", enc_config_encode_ms(c));
        jw_num(w, "time_scale", c->time_scale);
        jw_str(w, "fault", c->fault_spec);
    }
    jw_int(w, "rc", rc);
    if (error) jw_str(w, "error", error);
    sim_trace_line_end(&line);
}

int rknn_init(rknn_context* context, void* model, uint32_t size, uint32_t flag, rknn_init_extend* extend) {
    (void)flag;
    if (!context || !model) {
        rknn_log('E', "rknn_init, context and model must not be NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    *context = 0;
    const char* path = size == 0 ? (const char*)model : "<model in memory>";
    int id = (int)enc_next_id();
    EncoderConfig cfg;
    enc_config_defaults(&cfg);
    char err[1024] = "";
    int loaded = size == 0 ? enc_config_load(&cfg, path, err, sizeof err)
                           : enc_config_parse(&cfg, model, size, path, err, sizeof err);
    int rc = RKNN_SUCC;
    if (loaded == -1) rc = RKNN_ERR_FAIL;
    else if (loaded == -2) rc = RKNN_ERR_MODEL_INVALID;
    else if (enc_config_apply_env(&cfg, err, sizeof err)) rc = RKNN_ERR_FAIL;
    SimTrace trace;
    sim_trace_open(&trace, loaded == 0 && rc == 0 ? cfg.trace_path : enc_env_trace_path(), id);

    rknn_log('I', "RKNN Runtime Information, librknnrt version: %s", API_VERSION);
    rknn_log('I', "RKNN Driver Information, version: %s", DRV_VERSION);
    if (rc == RKNN_SUCC) {
        if (cfg.fault.init_fail) {
            snprintf(err, sizeof err, "simulated init failure (fault init_fail)");
            rc = RKNN_ERR_FAIL;
        } else if (cfg.fault.max_contexts >= 0 && enc_live_count() >= cfg.fault.max_contexts) {
            snprintf(err, sizeof err, "failed to malloc npu memory: %d context(s) already loaded (simulated, fault "
                     "max_contexts=%d)", enc_live_count(), cfg.fault.max_contexts);
            rc = RKNN_ERR_MALLOC_FAIL;
        }
    }
    if (rc != RKNN_SUCC) {
        if (loaded == -2) rknn_log('E', "parseRKNN from buffer: Invalid RKNN format!");
        rknn_log('E', "%s", err);
        rknn_log('E', "rknn_init, load model failed!");
        trace_init(&trace, path, loaded == 0 ? &cfg : NULL, rc, err);
        sim_trace_close(&trace);
        enc_config_free(&cfg);
        return rc;
    }
    rknn_log('I', "RKNN Model Information, version: 6, toolkit version: %s, target: RKNPU v2, target platform: "
             "rk3588, framework name: ONNX, framework layout: NCHW, model inference type: static_shape (simulated: %s)",
             "2.3.2", cfg.name);
    sim_sleep_ms(cfg.init_ms * cfg.time_scale);
    trace_init(&trace, path, &cfg, rc, NULL);
    SimEncoder* e = enc_register(&cfg, &trace);
    if (extend) extend->ctx = e->id;
    *context = e->id;
    return RKNN_SUCC;
}

int rknn_destroy(rknn_context context) {
    SimEncoder* e = enc_unregister(context);
    if (!e) return RKNN_ERR_CTX_INVALID;
    if (e->live_count) {
        rknn_log('W', "rknn_destroy: %d output buffer(s) of rknn_outputs_get were never released", e->live_count);
    }
    SimTraceLine line;
    if (sim_trace_line_start(&line, &e->trace, "destroy")) {
        jw_int(&line.w, "live_outputs", e->live_count);
        sim_trace_line_end(&line);
    }
    enc_free(e);
    return RKNN_SUCC;
}

static void fill_input_attr(const EncoderConfig* c, rknn_tensor_attr* a) {
    a->n_dims = 4;
    a->dims[0] = 1;
    if (c->input_format == RKNN_TENSOR_NCHW) {
        a->dims[1] = (uint32_t)c->channels;
        a->dims[2] = (uint32_t)c->height;
        a->dims[3] = (uint32_t)c->width;
    } else {
        a->dims[1] = (uint32_t)c->height;
        a->dims[2] = (uint32_t)c->width;
        a->dims[3] = (uint32_t)c->channels;
    }
    snprintf(a->name, sizeof a->name, "pixel_values");
    a->n_elems = (uint32_t)c->width * (uint32_t)c->height * (uint32_t)c->channels;
    a->fmt = c->input_format;
    a->type = c->input_type;
    size_t bytes = c->input_type == RKNN_TENSOR_FLOAT32 ? 4 : c->input_type == RKNN_TENSOR_FLOAT16 ? 2 : 1;
    a->size = a->n_elems * (uint32_t)bytes;
    a->w_stride = (uint32_t)c->width;
    a->size_with_stride = a->size;
    a->scale = 1.0f;
}

static void fill_output_attr(const EncoderConfig* c, uint32_t index, rknn_tensor_attr* a) {
    a->n_dims = (uint32_t)c->output_dims;
    uint32_t* d = a->dims;
    if (c->output_dims == 3) *d++ = 1;
    d[0] = (uint32_t)c->image_tokens;
    d[1] = (uint32_t)c->embed_dim;
    if (index == 0) snprintf(a->name, sizeof a->name, "image_embeds");
    else snprintf(a->name, sizeof a->name, "deepstack_%u", index - 1);
    a->n_elems = (uint32_t)c->image_tokens * (uint32_t)c->embed_dim;
    a->fmt = RKNN_TENSOR_UNDEFINED;
    a->type = c->output_type;
    a->size = a->n_elems * (c->output_type == RKNN_TENSOR_FLOAT32 ? 4u : 2u);
    a->size_with_stride = a->size;
    a->scale = 1.0f;
}

static const char* query_name(rknn_query_cmd cmd) {
    switch (cmd) {
        case RKNN_QUERY_IN_OUT_NUM: return "in_out_num";
        case RKNN_QUERY_INPUT_ATTR: return "input_attr";
        case RKNN_QUERY_OUTPUT_ATTR: return "output_attr";
        case RKNN_QUERY_PERF_RUN: return "perf_run";
        case RKNN_QUERY_SDK_VERSION: return "sdk_version";
        default: return "other";
    }
}

/* The size check is strict: a binding whose struct size differs from the header's is wrong. */
static int query(SimEncoder* e, rknn_query_cmd cmd, void* info, uint32_t size, char* err, size_t errlen) {
    const EncoderConfig* c = &e->cfg;
    size_t want;
    switch (cmd) {
        case RKNN_QUERY_IN_OUT_NUM: want = sizeof(rknn_input_output_num); break;
        case RKNN_QUERY_INPUT_ATTR:
        case RKNN_QUERY_OUTPUT_ATTR: want = sizeof(rknn_tensor_attr); break;
        case RKNN_QUERY_PERF_RUN: want = sizeof(rknn_perf_run); break;
        case RKNN_QUERY_SDK_VERSION: want = sizeof(rknn_sdk_version); break;
        default:
            snprintf(err, errlen, "rknn_query: query %d is not simulated", (int)cmd);
            return RKNN_ERR_PARAM_INVALID;
    }
    if (!info || size != want) {
        snprintf(err, errlen, "rknn_query(%s): info size %u, expected %zu", query_name(cmd), size, want);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (cmd == RKNN_QUERY_IN_OUT_NUM) {
        rknn_input_output_num* io = info;
        io->n_input = 1;
        io->n_output = (uint32_t)c->outputs;
    } else if (cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_OUTPUT_ATTR) {
        rknn_tensor_attr* a = info;
        uint32_t index = a->index;
        uint32_t count = cmd == RKNN_QUERY_INPUT_ATTR ? 1u : (uint32_t)c->outputs;
        if (index >= count) {
            snprintf(err, errlen, "rknn_query(%s): index %u out of range (%u)", query_name(cmd), index, count);
            return RKNN_ERR_PARAM_INVALID;
        }
        memset(a, 0, sizeof *a);
        a->index = index;
        if (cmd == RKNN_QUERY_INPUT_ATTR) fill_input_attr(c, a);
        else fill_output_attr(c, index, a);
    } else if (cmd == RKNN_QUERY_PERF_RUN) {
        ((rknn_perf_run*)info)->run_duration = e->last_run_us;
    } else {
        rknn_sdk_version* v = info;
        memset(v, 0, sizeof *v);
        snprintf(v->api_version, sizeof v->api_version, "%s", API_VERSION);
        snprintf(v->drv_version, sizeof v->drv_version, "%s", DRV_VERSION);
    }
    return RKNN_SUCC;
}

int rknn_query(rknn_context context, rknn_query_cmd cmd, void* info, uint32_t size) {
    SimEncoder* e = enc_acquire(context);
    if (!e) return RKNN_ERR_CTX_INVALID;
    pthread_mutex_lock(&e->lock);
    char err[256] = "";
    int index = (cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_OUTPUT_ATTR) && info ? (int)((rknn_tensor_attr*)info)->index : -1;
    int rc = query(e, cmd, info, size, err, sizeof err);
    pthread_mutex_unlock(&e->lock);
    if (rc) rknn_log('E', "%s", err);
    SimTraceLine line;
    if (sim_trace_line_start(&line, &e->trace, "query")) {
        jw_str(&line.w, "cmd", query_name(cmd));
        jw_int(&line.w, "cmd_value", (int)cmd);
        if (index >= 0) jw_int(&line.w, "index", index);
        jw_int(&line.w, "rc", rc);
        if (rc) jw_str(&line.w, "error", err);
        sim_trace_line_end(&line);
    }
    enc_release(e);
    return rc;
}

int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask) {
    SimEncoder* e = enc_acquire(context);
    if (!e) return RKNN_ERR_CTX_INVALID;
    int rc = RKNN_SUCC;
    switch (core_mask) {
        case RKNN_NPU_CORE_AUTO:
        case RKNN_NPU_CORE_0:
        case RKNN_NPU_CORE_1:
        case RKNN_NPU_CORE_2:
        case RKNN_NPU_CORE_0_1:
        case RKNN_NPU_CORE_0_1_2:
        case RKNN_NPU_CORE_ALL:
            pthread_mutex_lock(&e->lock);
            e->core_mask = core_mask;
            pthread_mutex_unlock(&e->lock);
            break;
        default:
            rknn_log('E', "rknn_set_core_mask: invalid core mask 0x%x", (unsigned)core_mask);
            rc = RKNN_ERR_PARAM_INVALID;
    }
    SimTraceLine line;
    if (sim_trace_line_start(&line, &e->trace, "set_core_mask")) {
        jw_int(&line.w, "core_mask", (long long)core_mask);
        jw_int(&line.w, "cores", rc ? 0 : cores_of(core_mask));
        jw_int(&line.w, "rc", rc);
        sim_trace_line_end(&line);
    }
    enc_release(e);
    return rc;
}

int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[]) {
    SimEncoder* e = enc_acquire(context);
    if (!e) return RKNN_ERR_CTX_INVALID;
    char err[256] = "";
    int rc = RKNN_SUCC;
    const rknn_input* in = inputs;
    uint64_t want = 0;
    if (n_inputs != 1 || !inputs) {
        snprintf(err, sizeof err, "rknn_inputs_set: the model has 1 input, got %u", n_inputs);
        rc = RKNN_ERR_PARAM_INVALID;
    } else if (in->index != 0) {
        snprintf(err, sizeof err, "rknn_inputs_set: input index %u out of range (1 input)", in->index);
        rc = RKNN_ERR_PARAM_INVALID;
    } else if (in->pass_through) {
        snprintf(err, sizeof err, "rknn_inputs_set: pass_through is not simulated");
        rc = RKNN_ERR_PARAM_INVALID;
    } else if (in->fmt != RKNN_TENSOR_NHWC && in->fmt != RKNN_TENSOR_NCHW) {
        snprintf(err, sizeof err, "rknn_inputs_set: input format %d not supported (NHWC or NCHW)", (int)in->fmt);
        rc = RKNN_ERR_PARAM_INVALID;
    } else if ((want = enc_input_bytes(&e->cfg, in->type)) == 0) {
        snprintf(err, sizeof err, "rknn_inputs_set: input type %s not supported (UINT8, FP16, FP32)",
                 enc_type_name(in->type));
        rc = RKNN_ERR_PARAM_INVALID;
    } else if (!in->buf || in->size != want) {
        snprintf(err, sizeof err, "rknn_inputs_set: input size %u, the model needs %llu (%dx%dx%d %s)", in->size,
                 (unsigned long long)want, e->cfg.width, e->cfg.height, e->cfg.channels, enc_type_name(in->type));
        rc = RKNN_ERR_PARAM_INVALID;
    }
    pthread_mutex_lock(&e->lock);
    if (rc == RKNN_SUCC) enc_take_input(e, in->buf, in->type, in->fmt);
    pthread_mutex_unlock(&e->lock);
    if (rc) rknn_log('E', "%s", err);
    SimTraceLine line;
    if (sim_trace_line_start(&line, &e->trace, "inputs_set")) {
        JsonWriter* w = &line.w;
        jw_int(w, "n_inputs", n_inputs);
        if (inputs && n_inputs >= 1) {
            jw_int(w, "index", in->index);
            jw_str(w, "type", enc_type_name(in->type));
            jw_str(w, "fmt", enc_format_name(in->fmt));
            jw_int(w, "size", in->size);
            jw_int(w, "pass_through", in->pass_through);
        }
        jw_int(w, "rc", rc);
        if (rc) jw_str(w, "error", err);
        sim_trace_line_end(&line);
    }
    enc_release(e);
    return rc;
}

static void trace_run(SimEncoder* e, int rc, double ms, int cores, const char* error) {
    SimTraceLine line;
    if (!sim_trace_line_start(&line, &e->trace, "run")) return;
    JsonWriter* w = &line.w;
    char h[17];
    jw_int(w, "run", e->runs);
    jw_int(w, "rc", rc);
    jw_int(w, "cores", cores);
    jw_num(w, "run_ms", ms);
    if (rc == RKNN_SUCC) {
        hex(h, e->input_digest);
        jw_str(w, "input_digest", h);
        jw_key(w, "input_mean");
        sb_append_char(&line.sb, '[');
        for (int ch = 0; ch < e->cfg.channels; ch++) sb_printf(&line.sb, ch ? ",%.2f" : "%.2f", e->input_mean[ch]);
        sb_append_char(&line.sb, ']');
        jw_key(w, "output_digests");
        sb_append_char(&line.sb, '[');
        for (int j = 0; j < e->cfg.outputs; j++) {
            hex(h, enc_output_digest(e, j));
            if (j) sb_append_char(&line.sb, ',');
            json_append_string(&line.sb, h, 16);
        }
        sb_append_char(&line.sb, ']');
        hex(h, enc_embedding_digest(e));
        jw_str(w, "embedding_digest", h);
    }
    if (error) jw_str(w, "error", error);
    sim_trace_line_end(&line);
}

int rknn_run(rknn_context context, rknn_run_extend* extend) {
    SimEncoder* e = enc_acquire(context);
    if (!e) return RKNN_ERR_CTX_INVALID;
    pthread_mutex_lock(&e->lock);
    e->runs++;
    int cores = cores_of(e->core_mask);
    const EncoderFaults* f = &e->cfg.fault;
    double t0 = sim_now_ms();
    char err[256] = "";
    int rc = RKNN_SUCC;
    if (!e->pixels) {
        snprintf(err, sizeof err, "rknn_run: no input was set (rknn_inputs_set)");
        rc = RKNN_ERR_INPUT_INVALID;
    } else {
        sim_sleep_ms(enc_config_encode_ms(&e->cfg) * NPU_CORES / cores * f->slow_run * e->cfg.time_scale);
        if (f->run_error || (f->run_error_after >= 0 && e->runs > f->run_error_after)) {
            snprintf(err, sizeof err, "failed to submit!, op id: 1, op name: Conv (simulated, fault %s)", e->cfg.fault_spec);
            rc = RKNN_ERR_FAIL;
        } else {
            enc_compute_outputs(e);
            e->ran = 1;
        }
    }
    double ms = sim_now_ms() - t0;
    e->last_run_us = (int64_t)(ms * 1000.0);
    if (extend) extend->frame_id = (uint64_t)e->runs;
    if (rc) rknn_log('E', "%s", err);
    trace_run(e, rc, ms, cores, rc ? err : NULL);
    pthread_mutex_unlock(&e->lock);
    enc_release(e);
    return rc;
}

int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[], rknn_output_extend* extend) {
    SimEncoder* e = enc_acquire(context);
    if (!e) return RKNN_ERR_CTX_INVALID;
    pthread_mutex_lock(&e->lock);
    const EncoderConfig* c = &e->cfg;
    size_t elems = (size_t)c->image_tokens * c->embed_dim;
    char err[256] = "";
    int rc = RKNN_SUCC;
    if (!outputs || n_outputs != (uint32_t)c->outputs) {
        snprintf(err, sizeof err, "rknn_outputs_get: the model has %d output(s), got %u", c->outputs, n_outputs);
        rc = RKNN_ERR_PARAM_INVALID;
    } else if (!e->ran) {
        snprintf(err, sizeof err, "rknn_outputs_get: no successful rknn_run to get outputs of");
        rc = RKNN_ERR_OUTPUT_INVALID;
    } else {
        for (uint32_t i = 0; i < n_outputs; i++) {
            size_t bytes = elems * (outputs[i].want_float || c->output_type == RKNN_TENSOR_FLOAT32 ? 4 : 2);
            if (outputs[i].is_prealloc && (!outputs[i].buf || outputs[i].size < bytes)) {
                snprintf(err, sizeof err, "rknn_outputs_get: output %u is preallocated with %u bytes, needs %zu", i,
                         outputs[i].size, bytes);
                rc = RKNN_ERR_PARAM_INVALID;
                break;
            }
        }
    }
    int handed = 0;
    for (uint32_t i = 0; rc == RKNN_SUCC && i < n_outputs; i++) {
        /* the array position decides which output: the official demo leaves every index at 0 */
        rknn_output* o = &outputs[i];
        int as_float = o->want_float || c->output_type == RKNN_TENSOR_FLOAT32;
        size_t bytes = elems * (as_float ? 4 : 2);
        o->index = i;
        if (!o->is_prealloc) {
            o->buf = sim_xmalloc(bytes);
            LiveOutput* l = sim_xmalloc(sizeof(LiveOutput));
            l->buf = o->buf;
            l->next = e->live;
            e->live = l;
            e->live_count++;
            handed++;
        }
        o->size = (uint32_t)bytes;
        if (as_float) {
            memcpy(o->buf, e->outputs[i], bytes);
        } else {
            uint16_t* half = o->buf;
            for (size_t k = 0; k < elems; k++) half[k] = enc_float_to_half(e->outputs[i][k]);
        }
    }
    if (rc == RKNN_SUCC && extend) extend->frame_id = (uint64_t)e->runs;
    int live_now = e->live_count;
    pthread_mutex_unlock(&e->lock);
    if (rc) rknn_log('E', "%s", err);
    SimTraceLine line;
    if (sim_trace_line_start(&line, &e->trace, "outputs_get")) {
        JsonWriter* w = &line.w;
        jw_int(w, "n_outputs", n_outputs);
        if (outputs && n_outputs) {
            jw_int(w, "want_float", outputs[0].want_float);
            jw_int(w, "is_prealloc", outputs[0].is_prealloc);
        }
        jw_int(w, "allocated", handed);
        jw_int(w, "live_outputs", live_now);
        jw_int(w, "rc", rc);
        if (rc) jw_str(w, "error", err);
        sim_trace_line_end(&line);
    }
    enc_release(e);
    return rc;
}

int rknn_outputs_release(rknn_context context, uint32_t n_outputs, rknn_output outputs[]) {
    SimEncoder* e = enc_acquire(context);
    if (!e) return RKNN_ERR_CTX_INVALID;
    pthread_mutex_lock(&e->lock);
    int freed = 0;
    for (uint32_t i = 0; outputs && i < n_outputs; i++) {
        if (outputs[i].is_prealloc || !outputs[i].buf) continue;
        for (LiveOutput** p = &e->live; *p; p = &(*p)->next) {
            if ((*p)->buf == outputs[i].buf) {
                LiveOutput* l = *p;
                *p = l->next;
                free(l->buf);
                free(l);
                e->live_count--;
                freed++;
                outputs[i].buf = NULL;
                break;
            }
        }
    }
    int live_now = e->live_count;
    pthread_mutex_unlock(&e->lock);
    SimTraceLine line;
    if (sim_trace_line_start(&line, &e->trace, "outputs_release")) {
        jw_int(&line.w, "n_outputs", n_outputs);
        jw_int(&line.w, "freed", freed);
        jw_int(&line.w, "live_outputs", live_now);
        sim_trace_line_end(&line);
    }
    enc_release(e);
    return RKNN_SUCC;
}
