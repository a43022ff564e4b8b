/*
 * Smoke test of the simulated runtime through its C ABI, compiled once per ABI
 * (-DRKLLM_ABI_MINOR=2 or 3) and linked against the matching librkllmrt-1.x.so.
 *
 *   sim_smoke WORKDIR
 *
 * Writes its model files (and the trace, WORKDIR/trace.jsonl) under WORKDIR. Exit status 0 when
 * every check passed. When RKLLM_SIM_TIME_SCALE=0 is set (the valgrind run), the checks that need
 * real time to pass (abort during decode / prefill) are skipped.
 *
 * Token counts used below were computed by hand from the tokenizer rule of
 * docs/simulated-runtime.md, e.g. the default system part
 * "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n" =
 * <|im_start|> syste m \nYou  are  a  helpf ul  assis tant . <|im_end|> \n = 13 tokens.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rkllm.h"

#if RKLLM_ABI_MINOR == 2
#define ABI "1.2"
#else
#define ABI "1.3"
#endif

/* hand-computed token counts of the default (Qwen) template parts */
#define T_SYSTEM 13
#define T_PREFIX 3
#define T_POSTFIX 5

static int failures;
static int checks;
static const char* workdir;
static int zero_time; /* RKLLM_SIM_TIME_SCALE=0 in the environment */

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d [%s] %s: ", __FILE__, __LINE__, ABI, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---------- UTF-8 helpers (independent of the library's) ---------- */

/* 1 if b[0..len) is complete valid UTF-8 (no truncated trailing sequence). */
static int utf8_complete(const unsigned char* b, size_t len) {
    size_t i = 0;
    while (i < len) {
        unsigned char c = b[i];
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > len) return 0;
        for (size_t k = 1; k < n; k++)
            if ((b[i + k] & 0xC0) != 0x80) return 0;
        i += n;
    }
    return 1;
}

/* ---------- callback collector ---------- */

typedef struct {
    char text[1 << 16];
    size_t len;
    int n_normal, n_waiting, n_finish, n_error;
    int calls_after_end;  /* callbacks after FINISH/ERROR */
    int bad_state;        /* NORMAL that ended mid-character, or WAITING that did not */
    size_t max_chunk;
    int null_text_chunks; /* NORMAL/WAITING with NULL text */
    RKLLMPerfStat perf;
    int pause_at;        /* return 1 at this token (1-based); 0 never */
    LLMHandle handle;    /* when set, rkllm_is_running is sampled during the run */
    int running_value;   /* last rkllm_is_running value seen inside the callback */
    int abort_at;        /* call rkllm_abort(handle) from the callback at this token; 0 never */
    pthread_mutex_t* lock; /* when set, held during the callback (for polling from another thread) */
    float hidden[4096];    /* a copy of the last hidden layer (rows * embd_size floats, as far as it fits) */
    int hidden_rows, hidden_embd, hidden_callbacks;
    int vector_return;     /* returned for a callback carrying hidden states */
} Collector;

static void collector_reset(Collector* c) {
    memset(c, 0, sizeof(*c));
    c->running_value = -99;
}

static int tokens_of(const Collector* c) {
    return c->n_normal + c->n_waiting;
}

static int callback_body(RKLLMResult* r, Collector* c, LLMCallState state);

static int callback(RKLLMResult* r, void* userdata, LLMCallState state) {
    Collector* c = userdata;
    if (!c) {
        fprintf(stderr, "FAIL [%s] callback got NULL userdata\n", ABI);
        failures++;
        return 0;
    }
    if (c->lock) pthread_mutex_lock(c->lock);
    int rc = callback_body(r, c, state);
    if (c->lock) pthread_mutex_unlock(c->lock);
    return rc;
}

static int callback_body(RKLLMResult* r, Collector* c, LLMCallState state) {
    if (c->n_finish || c->n_error) c->calls_after_end++;
    switch (state) {
        case RKLLM_RUN_NORMAL:
        case RKLLM_RUN_WAITING: {
            if (r->last_hidden_layer.hidden_states) {
                c->hidden_callbacks++;
                c->hidden_rows = r->last_hidden_layer.num_tokens;
                c->hidden_embd = r->last_hidden_layer.embd_size;
                size_t n = (size_t)c->hidden_rows * (size_t)c->hidden_embd;
                memcpy(c->hidden, r->last_hidden_layer.hidden_states,
                       (n < 4096 ? n : 4096) * sizeof(float));
                if (r->text && r->text[0]) c->bad_state++;
                return c->vector_return;
            }
            if (!r->text) {
                c->null_text_chunks++;
                break;
            }
            size_t n = strlen(r->text);
            if (n > c->max_chunk) c->max_chunk = n;
            if (c->len + n < sizeof c->text) {
                memcpy(c->text + c->len, r->text, n);
                c->len += n;
            }
            int complete = utf8_complete((const unsigned char*)c->text, c->len);
            if (state == RKLLM_RUN_NORMAL) {
                c->n_normal++;
                if (!complete) c->bad_state++;
            } else {
                c->n_waiting++;
                if (complete) c->bad_state++;
            }
            if (c->handle) c->running_value = rkllm_is_running(c->handle);
            if (c->abort_at && tokens_of(c) == c->abort_at) rkllm_abort(c->handle);
            if (c->pause_at && tokens_of(c) == c->pause_at) return 1;
            break;
        }
        case RKLLM_RUN_FINISH:
            c->n_finish++;
            c->perf = r->perf;
            break;
        case RKLLM_RUN_ERROR:
            c->n_error++;
            c->perf = r->perf;
            break;
    }
    return 0;
}

/* ---------- model files and handles ---------- */

static char* model_file(const char* name, const char* fmt, ...) {
    static char paths[64][512];
    static int next;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    char* path = paths[next++ % 64];
    pthread_mutex_unlock(&lock);
    snprintf(path, 512, "%s/%s.rkllm", workdir, name);
    FILE* f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fprintf(f, "#rkllm-sim 1\n# model for sim_smoke\ntrace: %s/trace.jsonl\n", workdir);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    return path;
}

static Collector default_collector; /* 1.3: RKLLMCallback.result_userdata */

static int init_with(LLMHandle* h, const char* path, int max_ctx, int max_new, int skip_special) {
    RKLLMParam p = rkllm_createDefaultParam();
    p.model_path = path;
    p.max_context_len = max_ctx;
    p.max_new_tokens = max_new;
    p.skip_special_token = skip_special;
#if RKLLM_ABI_MINOR >= 3
    RKLLMCallback cb;
    memset(&cb, 0, sizeof cb);
    cb.result_callback = callback;
    cb.result_userdata = &default_collector;
    return rkllm_init(h, &p, &cb);
#else
    return rkllm_init(h, &p, callback);
#endif
}

static int init_handle(LLMHandle* h, const char* path, int max_ctx, int max_new) {
    return init_with(h, path, max_ctx, max_new, 1);
}

typedef struct {
    const char* role;
    int keep_history;
    int thinking;
    int max_new_tokens; /* 1.3 only */
    const char* lora;
    int save_cache;
    const char* cache_path;
    int pass_userdata_null;
} RunOpts;

static int run_with(LLMHandle h, const char* prompt, const RunOpts* o, Collector* c) {
    if (c != &default_collector) collector_reset(c);
    RKLLMInput in;
    memset(&in, 0, sizeof in);
    in.role = o->role ? o->role : "user";
    in.enable_thinking = o->thinking;
    in.input_type = RKLLM_INPUT_PROMPT;
    in.prompt_input = prompt;
    RKLLMInferParam ip;
    memset(&ip, 0, sizeof ip);
    ip.mode = RKLLM_INFER_GENERATE;
    ip.keep_history = o->keep_history;
    RKLLMLoraParam lp = {o->lora};
    if (o->lora) ip.lora_params = &lp;
    RKLLMPromptCacheParam pc = {o->save_cache, o->cache_path};
    if (o->cache_path) ip.prompt_cache_params = &pc;
#if RKLLM_ABI_MINOR >= 3
    ip.max_new_tokens = o->max_new_tokens;
    RKLLMSamplingParam sp = {40, 0.95f, 0.7f, 1.05f, 0.0f, 0.0f, 0, 5.0f, 0.1f};
    ip.sampling_params = &sp;
#endif
    return rkllm_run(h, &in, &ip, o->pass_userdata_null ? NULL : c);
}

/* A GET_LAST_HIDDEN_LAYER run; the callback returns ret for the hidden states. */
static int run_hidden(LLMHandle h, const char* prompt, int keep_history, int ret, Collector* c) {
    collector_reset(c);
    c->vector_return = ret;
    RKLLMInput in;
    memset(&in, 0, sizeof in);
    in.role = "user";
    in.input_type = RKLLM_INPUT_PROMPT;
    in.prompt_input = prompt;
    RKLLMInferParam ip;
    memset(&ip, 0, sizeof ip);
    ip.mode = RKLLM_INFER_GET_LAST_HIDDEN_LAYER;
    ip.keep_history = keep_history;
    return rkllm_run(h, &in, &ip, c);
}

static int run_simple(LLMHandle h, const char* prompt, int keep_history, Collector* c) {
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.keep_history = keep_history;
    return run_with(h, prompt, &o, c);
}

static int cache_size(LLMHandle h) {
    int sizes[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    int rc = rkllm_get_kv_cache_size(h, sizes);
    CHECK(rc == 0, "get_kv_cache_size rc %d", rc);
    CHECK(sizes[1] == -1, "n_batch 1 must fill exactly one int");
    return sizes[0];
}

/* ---------- tests ---------- */

static void test_defaults(void) {
    RKLLMParam p = rkllm_createDefaultParam();
    CHECK(p.max_context_len == 512 && p.max_new_tokens == -1 && p.top_k == 1, "ctx %d new %d k %d", p.max_context_len,
          p.max_new_tokens, p.top_k);
    CHECK(p.top_p > 0.89f && p.top_p < 0.91f && p.temperature > 0.79f && p.temperature < 0.81f, "top_p/temperature");
    CHECK(p.repeat_penalty > 1.09f && p.repeat_penalty < 1.11f && p.mirostat == 0, "repeat_penalty/mirostat");
    CHECK(p.mirostat_tau == 5.0f && p.mirostat_eta > 0.09f && p.mirostat_eta < 0.11f, "mirostat tau/eta");
    CHECK(p.skip_special_token && !p.is_async && p.extend_param.n_batch == 1, "flags");
    CHECK(p.model_path == NULL, "model_path NULL");
}

static void test_init(void) {
    LLMHandle h = (LLMHandle)0x1;
    const char* ok = model_file("ok", "time_scale: 0\n");
    CHECK(init_handle(&h, ok, 4096, -1) == 0 && h != NULL, "init ok");
    CHECK(rkllm_destroy(h) == 0, "destroy");

    h = (LLMHandle)0x1;
    CHECK(init_handle(&h, model_file("fail", "time_scale: 0\nfault: init_fail\n"), 512, -1) == -1 && h == NULL,
          "init_fail fault");
    h = (LLMHandle)0x1;
    CHECK(init_handle(&h, model_file("null", "time_scale: 0\nfault: init_null\n"), 512, -1) == 0 && h == NULL,
          "init_null fault returns 0 and a NULL handle");
    /* max_handles: out of NPU memory while that many handles (of any model) are alive */
    LLMHandle first = NULL, second = (LLMHandle)0x1;
    const char* full = model_file("full", "time_scale: 0\nfault: max_handles=1\n");
    CHECK(init_handle(&first, ok, 512, -1) == 0 && first != NULL, "a first model loads");
    CHECK(init_handle(&second, full, 512, -1) == -1 && second == NULL, "max_handles=1 refuses a second handle");
    CHECK(rkllm_destroy(first) == 0, "destroy the first");
    CHECK(init_handle(&second, full, 512, -1) == 0 && second != NULL, "max_handles=1 loads once the first is gone");
    rkllm_destroy(second);
    char missing[512];
    snprintf(missing, sizeof missing, "%s/does-not-exist.rkllm", workdir);
    h = (LLMHandle)0x1;
    CHECK(init_handle(&h, missing, 512, -1) == -1 && h == NULL, "missing file");
    char nomagic[512];
    snprintf(nomagic, sizeof nomagic, "%s/nomagic.rkllm", workdir);
    FILE* f = fopen(nomagic, "w");
    fputs("name: x\n", f);
    fclose(f);
    h = (LLMHandle)0x1;
    CHECK(init_handle(&h, nomagic, 512, -1) == -1 && h == NULL, "file without magic");
    h = (LLMHandle)0x1;
    CHECK(init_handle(&h, ok, 8192, -1) == -1 && h == NULL, "context above max_context_limit");
    h = (LLMHandle)0x1;
    CHECK(init_handle(&h, ok, 0, -1) == -1 && h == NULL, "context 0");
    const char* small = model_file("small_limit", "time_scale: 0\nmax_context_limit: 1024\n");
    CHECK(init_handle(&h, small, 2048, -1) == -1 && h == NULL, "context above a custom limit");
    CHECK(init_handle(&h, small, 1024, -1) == 0 && h != NULL, "context equal to the limit is fine");
    rkllm_destroy(h);
    h = (LLMHandle)0x1;
    CHECK(init_handle(&h, model_file("badnum", "time_scale: 0\ndecode_tps: fast\n"), 512, -1) == -1 && h == NULL,
          "bad numeric value fails init");
}

static void test_kv_cache(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("kv", "time_scale: 0\nreply_tokens: 10\n"), 4096, -1);
    Collector c;
    /* "Hello there" = Hello, " there" = 2 tokens */
    CHECK(cache_size(h) == 0, "fresh cache");
    CHECK(run_simple(h, "Hello there", 1, &c) == 0, "run 1");
    CHECK(c.n_finish == 1 && c.n_error == 0 && c.calls_after_end == 0, "one FINISH, last");
    CHECK(c.perf.prefill_tokens == T_SYSTEM + T_PREFIX + 2 + T_POSTFIX, "first run prefills the system part: %d",
          c.perf.prefill_tokens);
    CHECK(c.perf.generate_tokens == 10 && tokens_of(&c) == 10, "reply_tokens 10: gen %d callbacks %d",
          c.perf.generate_tokens, tokens_of(&c));
    CHECK(c.perf.memory_usage_mb == 2300.0f, "memory %f", c.perf.memory_usage_mb);
    CHECK(c.text[c.len - 1] == '.', "answer ends with a period");
    int after1 = T_SYSTEM + T_PREFIX + 2 + T_POSTFIX + 10;
    CHECK(cache_size(h) == after1, "keep_history=1 keeps prefill+generated: %d", cache_size(h));

    CHECK(run_simple(h, "Hello there", 1, &c) == 0, "run 2");
    CHECK(c.perf.prefill_tokens == T_PREFIX + 2 + T_POSTFIX, "second run: no system part: %d", c.perf.prefill_tokens);
    int after2 = after1 + T_PREFIX + 2 + T_POSTFIX + 10;
    CHECK(cache_size(h) == after2, "cache %d", cache_size(h));

    CHECK(run_simple(h, "Hello there", 0, &c) == 0, "run keep_history=0");
    CHECK(c.perf.prefill_tokens == T_PREFIX + 2 + T_POSTFIX, "keep_history=0 still sees the cache (quirk): %d",
          c.perf.prefill_tokens);
    CHECK(cache_size(h) == after2, "keep_history=0 restores the cache: %d", cache_size(h));

    CHECK(rkllm_clear_kv_cache(h, 1, NULL, NULL) == 0, "clear keep system");
    CHECK(cache_size(h) == T_SYSTEM, "clear(keep_system_prompt=1) keeps the system tokens: %d", cache_size(h));
    run_simple(h, "Hello there", 1, &c);
    CHECK(c.perf.prefill_tokens == T_PREFIX + 2 + T_POSTFIX, "after clear(1): system not re-prefilled: %d",
          c.perf.prefill_tokens);
    CHECK(rkllm_clear_kv_cache(h, 0, NULL, NULL) == 0, "clear all");
    CHECK(cache_size(h) == 0, "clear(0) empties the cache");
    CHECK(rkllm_clear_kv_cache(h, 1, NULL, NULL) == 0 && cache_size(h) == 0,
          "clear(1) on an empty cache keeps it empty");
    run_simple(h, "Hello there", 0, &c);
    CHECK(c.perf.prefill_tokens == T_SYSTEM + T_PREFIX + 2 + T_POSTFIX, "empty cache: system prefilled again");
    CHECK(cache_size(h) == 0, "keep_history=0 on an empty cache leaves it empty");

    /* determinism: same prompt and cache length, same answer */
    Collector c2;
    run_simple(h, "Hello there", 0, &c2);
    CHECK(c.len == c2.len && memcmp(c.text, c2.text, c.len) == 0, "deterministic answer");
    rkllm_destroy(h);
}

static void test_context_limits(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("ctx", "time_scale: 0\nreply_tokens: 10\n"), 40, -1);
    Collector c;
    /* prefill = 13 + 3 + 2 + 5 = 23; [[tokens:100]] = [[ token s: 100 ]] counts too: */
    const char* p = "go [[tokens:100]]"; /* go, " [", [, token, s, :, 100, ], ] = 9 */
    CHECK(run_simple(h, p, 1, &c) == 0, "run");
    CHECK(c.perf.prefill_tokens == T_SYSTEM + T_PREFIX + 9 + T_POSTFIX, "prefill %d", c.perf.prefill_tokens);
    CHECK(c.perf.generate_tokens == 40 - c.perf.prefill_tokens, "generation stops at the context end: %d",
          c.perf.generate_tokens);
    CHECK(cache_size(h) == 40, "cache full: %d", cache_size(h));
    CHECK(run_simple(h, "Hello there", 1, &c) == -1, "over-long prompt fails");
    CHECK(c.n_error == 1 && c.n_finish == 0, "ERROR callback, no FINISH");
    CHECK(cache_size(h) == 40, "cache unchanged by the failed run");
    rkllm_clear_kv_cache(h, 0, NULL, NULL);
    char big[400];
    memset(big, 0, sizeof big);
    for (int i = 0; i < 30; i++) strcat(big, "word ");
    CHECK(run_simple(h, big, 1, &c) == -1 && c.n_error == 1, "prompt longer than the context fails");
    CHECK(cache_size(h) == 0, "still empty");
    rkllm_destroy(h);
}

static void test_tokens_directive_and_max_new_tokens(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("maxnew", "time_scale: 0\n"), 4096, 7);
    Collector c;
    run_simple(h, "[[tokens:25]]", 0, &c);
    CHECK(c.perf.generate_tokens == 7 && tokens_of(&c) == 7 && c.n_finish == 1, "init max_new_tokens 7: %d",
          c.perf.generate_tokens);
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.max_new_tokens = 3;
    run_with(h, "[[tokens:25]]", &o, &c);
#if RKLLM_ABI_MINOR >= 3
    CHECK(c.perf.generate_tokens == 3, "1.3: per-run max_new_tokens 3 wins: %d", c.perf.generate_tokens);
#else
    CHECK(c.perf.generate_tokens == 7, "1.2: no per-run max_new_tokens: %d", c.perf.generate_tokens);
#endif
    rkllm_destroy(h);

    init_handle(&h, model_file("tokens", "time_scale: 0\n"), 4096, -1);
    for (int n = 0; n <= 60; n += 7) {
        char prompt[64];
        snprintf(prompt, sizeof prompt, "old [[tokens:3]] new [[tokens:%d]]", n);
        run_simple(h, prompt, 0, &c);
        CHECK(c.perf.generate_tokens == n && tokens_of(&c) == n, "[[tokens:%d]] gave %d", n, c.perf.generate_tokens);
        CHECK(c.bad_state == 0 && utf8_complete((unsigned char*)c.text, c.len), "valid UTF-8, WAITING only mid-char");
    }
    o.max_new_tokens = 0;
    run_with(h, "[[tokens:400]]", &o, &c);
    CHECK(c.perf.generate_tokens == 400, "400 tokens");
    CHECK(c.n_waiting > 0, "long pseudo-text splits some multi-byte characters (WAITING): %d", c.n_waiting);
    CHECK(c.bad_state == 0 && c.null_text_chunks == 0, "states consistent with the bytes");
    rkllm_destroy(h);
}

static void test_say(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("say", "time_scale: 0\nthinking: 1\n"), 4096, -1);
    const char* expected = "h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x9a\x80 <think>x</think>\n end";
    Collector c;
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.thinking = 1;
    CHECK(run_with(h, "please [[say:h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x9a\x80 <think>x</think>\\n end]] thanks",
                   &o, &c) == 0,
          "say run");
    CHECK(c.len == strlen(expected) && memcmp(c.text, expected, c.len) == 0, "reassembled bytes equal: '%.*s'",
          (int)c.len, c.text);
    CHECK(c.max_chunk <= 3, "chunks of at most 3 bytes: %zu", c.max_chunk);
    CHECK(c.n_waiting > 0 && c.bad_state == 0, "WAITING exactly when a chunk ends mid-character (%d waiting)",
          c.n_waiting);
    CHECK(c.perf.generate_tokens == (int)((strlen(expected) + 2) / 3), "one token per chunk: %d",
          c.perf.generate_tokens);
    /* no thinking block for say, even with thinking on */
    CHECK(strncmp(c.text, "<think>", 7) != 0, "no think block");
    run_simple(h, "[[say:]]", 0, &c);
    CHECK(c.len == 0 && c.n_finish == 1 && c.perf.generate_tokens == 0, "empty say");

    /* thinking model: think block first */
    o.thinking = 1;
    run_with(h, "Why is the sky blue?", &o, &c);
    c.text[c.len] = 0;
    CHECK(strncmp(c.text, "<think>\n", 8) == 0 && strstr(c.text, "\n</think>\n\n") != NULL, "think block: %s",
          c.text);
    o.thinking = 0;
    run_with(h, "Why is the sky blue?", &o, &c);
    c.text[c.len] = 0;
    CHECK(strstr(c.text, "<think>") == NULL, "no thinking when enable_thinking=0");
    /* a custom template decides thinking: a postfix ending with an empty think block turns it off */
    rkllm_set_chat_template(h, "<|im_start|>system\nBe brief.<|im_end|>\n", "<|im_start|>user\n",
                            "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
    o.thinking = 1;
    run_with(h, "Why is the sky blue?", &o, &c);
    c.text[c.len] = 0;
    CHECK(strstr(c.text, "<think>") == NULL, "custom template disables thinking");
    /* system part: <|im_start|> syste m \nBe  brief . <|im_end|> \n = 8;
       the empty think block: the final \n joins < (so \n< think > \n\n< / think > \n\n) = 7 more */
    CHECK(c.perf.prefill_tokens == 8 + T_PREFIX + 6 + T_POSTFIX + 7, "custom template counted: %d",
          c.perf.prefill_tokens);
    rkllm_destroy(h);
}

static int answer_is(Collector* c, const char* expected) {
    c->text[c->len] = 0;
    return strcmp(c->text, expected) == 0;
}

/* Tools get_weather and now set: only the newest turn of a prompt decides whether the model calls a tool. */
static void test_tools_newest_turn(LLMHandle h) {
    Collector c;
    const char* earlier =
        "User: What does get_weather say for Paris?\n\nAssistant: <tool_call>\n{\"name\": \"get_weather\", "
        "\"arguments\": {\"location\": \"Paris\"}}\n</tool_call>\n\nTool result: {\"temperature\": 21}\n\n";
    char prompt[2048];
    /* a flattened resend: the earlier turns name a tool, the newest user text does not */
    snprintf(prompt, sizeof prompt, "%sAssistant: It is 21 degrees.\n\nUser: Thanks! Is that warm?", earlier);
    run_simple(h, prompt, 0, &c);
    c.text[c.len] = 0;
    CHECK(!strstr(c.text, "<tool_call>") && c.perf.generate_tokens == 48, "earlier turns call nothing: %s", c.text);
    snprintf(prompt, sizeof prompt, "%sAssistant: It is 21 degrees.\n\nUser: And what time is it now?", earlier);
    run_simple(h, prompt, 0, &c);
    CHECK(answer_is(&c, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"),
          "the newest user text names a tool: %s", c.text);
    /* a turn whose text ends with a newline: three newlines before the next marker */
    run_simple(h, "User: What does get_weather say?\n\nTool result: 21\n\n\nUser: Thanks!", 0, &c);
    c.text[c.len] = 0;
    CHECK(!strstr(c.text, "The tool returned") && !strstr(c.text, "<tool_call>"), "the last marker after three "
          "newlines: %s", c.text);
    run_simple(h, "User: Hi\n\nTool result: 21\n\n\nUser: And what time is it now?", 0, &c);
    CHECK(answer_is(&c, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"),
          "the newest user text after three newlines: %s", c.text);
    /* a flattened resend that ends with the tool's result: answered like a tool-role run */
    snprintf(prompt, sizeof prompt, "%.*s", (int)strlen(earlier) - 2, earlier);
    run_simple(h, prompt, 0, &c);
    CHECK(answer_is(&c, "The tool returned: \"{\"temperature\": 21}\"."), "tool result last: %s", c.text);
    /* and one that ends with the assistant's turn (a prefill): prose */
    run_simple(h, "User: Call get_weather.\n\nAssistant: Sure, calling get_weather", 0, &c);
    c.text[c.len] = 0;
    CHECK(!strstr(c.text, "<tool_call>"), "assistant turn last: %s", c.text);
    /* system notes: a System: turn after the newest user turn, System: paragraphs around an incremental turn */
    run_simple(h, "User: Hi\n\nAssistant: Hello!\n\nUser: How are you?\n\nSystem: Tools: get_weather, now.", 0, &c);
    c.text[c.len] = 0;
    CHECK(!strstr(c.text, "<tool_call>"), "flattened system note: %s", c.text);
    run_simple(h, "System: You may call get_weather.\n\nHow are you?", 0, &c);
    c.text[c.len] = 0;
    CHECK(!strstr(c.text, "<tool_call>"), "system note before the user's text: %s", c.text);
    run_simple(h, "What time is it now?\n\nSystem: get_weather is slow today.", 0, &c);
    CHECK(answer_is(&c, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"),
          "system note after the user's text: %s", c.text);
    /* a plain prompt that merely contains the words, not at a turn's start, is the user's text */
    run_simple(h, "Please quote: User: call get_weather", 0, &c);
    CHECK(strncmp(c.text, "<tool_call>\n{\"name\": \"get_weather\"", 33) == 0, "plain prompt: %s", c.text);
}

static void test_tools(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("tools", "time_scale: 0\n"), 4096, -1);
    const char* tools =
        "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Weather\",\"parameters\":"
        "{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\"},\"unit\":{\"type\":\"string\"}},"
        "\"required\":[\"location\"]}}},"
        "{\"type\":\"function\",\"function\":{\"name\":\"now\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}}]";
    CHECK(rkllm_set_function_tools(h, "You are a bot.", "{not json", "tool_response") == -1, "bad tools JSON");
    CHECK(rkllm_set_function_tools(h, "You are a bot.", tools, "tool_response") == 0, "set tools");
    Collector c;
    run_simple(h, "What does get_weather say for Paris?", 1, &c);
    c.text[c.len] = 0;
    CHECK(strcmp(c.text, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"sim\", \"unit\": \"sim\"}}\n"
                         "</tool_call>") == 0,
          "tool call: %s", c.text);
    run_simple(h, "And what time is it now?", 1, &c);
    c.text[c.len] = 0;
    CHECK(strcmp(c.text, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>") == 0, "tool call: %s",
          c.text);
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.role = "tool";
    o.keep_history = 1;
    run_with(h, "{\"temperature\": 21, \"sky\": \"clear\"}", &o, &c);
    c.text[c.len] = 0;
    CHECK(strncmp(c.text, "The tool returned: \"{\"temperature\": 21", 38) == 0, "tool answer: %s", c.text);
    /* body "<tool_response>\n{...}\n</tool_response>" = < tool _ respo nse > \n{ " tempe ratur e " : " 21" , ' "'
       sky " : ' "' clear " } \n< / tool _ respo nse > = 30 tokens */
    CHECK(c.perf.prefill_tokens == T_PREFIX + 30 + T_POSTFIX, "tool response wrapped: %d", c.perf.prefill_tokens);
    run_with(h, "get_weather: 21 degrees, now sunny", &o, &c);
    c.text[c.len] = 0;
    CHECK(strcmp(c.text, "The tool returned: \"get_weather: 21 degrees, now sunny\".") == 0,
          "a tool result naming tools is answered, not called again: %s", c.text);
    test_tools_newest_turn(h);
    rkllm_destroy(h);

    /* numbers as agents declare them: Codex's exec_command ("number", parsed as usize) and opencode's bash timeout
       ("integer" with exclusiveMinimum 0 beside JavaScript's smallest safe integer) */
    init_handle(&h, model_file("agent_tools", "time_scale: 0\n"), 4096, -1);
    const char* agent_tools =
        "[{\"type\":\"function\",\"function\":{\"name\":\"exec_command\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{\"cmd\":{\"type\":\"string\"},\"max_output_tokens\":{\"type\":\"number\"},"
        "\"yield_time_ms\":{\"type\":\"number\"}},\"required\":[\"cmd\"]}}},"
        "{\"type\":\"function\",\"function\":{\"name\":\"bash\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{\"command\":{\"type\":\"string\"},\"timeout\":{\"type\":\"integer\",\"exclusiveMinimum\":0,"
        "\"minimum\":-9007199254740991}},\"required\":[\"command\"]}}}]";
    CHECK(rkllm_set_function_tools(h, "", agent_tools, "tool_response") == 0, "set agent tools");
    run_simple(h, "Use exec_command to list the files in this directory.", 0, &c);
    c.text[c.len] = 0;
    CHECK(strcmp(c.text, "<tool_call>\n{\"name\": \"exec_command\", \"arguments\": {\"cmd\": \"sim\", "
                         "\"max_output_tokens\": 1, \"yield_time_ms\": 1}}\n</tool_call>") == 0,
          "whole numbers for \"number\": %s", c.text);
    run_simple(h, "Use the bash tool to list the files in this directory.", 0, &c);
    c.text[c.len] = 0;
    CHECK(strcmp(c.text, "<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"sim\", \"timeout\": 1}}\n"
                         "</tool_call>") == 0,
          "exclusiveMinimum 0 is stricter than the minimum beside it: %s", c.text);
    rkllm_destroy(h);
}

static void test_error_and_pause(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("err", "time_scale: 0\nfault: error_after=5\nreply_tokens: 20\n"), 4096, -1);
    Collector c;
    CHECK(run_simple(h, "Hello there", 1, &c) == -1, "error_after run returns -1");
    CHECK(tokens_of(&c) == 5 && c.n_error == 1 && c.n_finish == 0 && c.calls_after_end == 0,
          "ERROR after 5 tokens: tokens %d err %d fin %d", tokens_of(&c), c.n_error, c.n_finish);
    CHECK(c.perf.generate_tokens == 5, "perf at ERROR: %d", c.perf.generate_tokens);
    CHECK(cache_size(h) == 0, "failed run leaves the cache unchanged");
    rkllm_destroy(h);

    init_handle(&h, model_file("pause", "time_scale: 0\nreply_tokens: 20\n"), 4096, -1);
    run_simple(h, "Hello", 0, &c); /* warm: nothing kept */
    collector_reset(&c);
    c.pause_at = 4;
    RKLLMInput in;
    memset(&in, 0, sizeof in);
    in.role = "user";
    in.prompt_input = "Hello there";
    RKLLMInferParam ip;
    memset(&ip, 0, sizeof ip);
    ip.keep_history = 0;
    CHECK(rkllm_run(h, &in, &ip, &c) == 0, "paused run returns 0");
    CHECK(tokens_of(&c) == 4 && c.n_finish == 0, "pause stops at once, no FINISH: %d tokens, %d finish", tokens_of(&c),
          c.n_finish);
    CHECK(cache_size(h) == T_SYSTEM + T_PREFIX + 2 + T_POSTFIX + 4, "pause keeps the KV: %d", cache_size(h));
    rkllm_destroy(h);
}

static void test_is_running_and_userdata(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("running", "time_scale: 0\nreply_tokens: 5\n"), 4096, -1);
    Collector c;
    collector_reset(&c);
    c.handle = h;
    RKLLMInput in;
    memset(&in, 0, sizeof in);
    in.role = "user";
    in.prompt_input = "hi";
    RKLLMInferParam ip;
    memset(&ip, 0, sizeof ip);
    rkllm_run(h, &in, &ip, &c);
#if RKLLM_ABI_MINOR >= 3
    CHECK(c.running_value == 1, "1.3 is_running = 1 while running: %d", c.running_value);
    CHECK(rkllm_is_running(h) == 0, "1.3 is_running = 0 when idle");
    collector_reset(&default_collector);
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.pass_userdata_null = 1;
    run_with(h, "hi", &o, &default_collector);
    CHECK(default_collector.n_finish == 1 && tokens_of(&default_collector) == 5,
          "NULL run userdata: result_userdata used");
    collector_reset(&default_collector);
    run_simple(h, "hi", 0, &c);
    CHECK(default_collector.n_finish == 0 && c.n_finish == 1, "non-NULL run userdata overrides result_userdata");
#else
    CHECK(c.running_value == 0, "1.2 is_running = 0 while running: %d", c.running_value);
    CHECK(rkllm_is_running(h) != 0, "1.2 is_running != 0 when idle");
#endif
    /* abort when nothing runs: no effect on the next run */
    CHECK(rkllm_abort(h) == 0, "idle abort");
    run_simple(h, "hi", 0, &c);
    CHECK(c.perf.generate_tokens == 5 && c.n_finish == 1, "run after an idle abort is complete: %d",
          c.perf.generate_tokens);
    /* abort from inside the callback */
    collector_reset(&c);
    c.handle = h;
    c.abort_at = 2;
    rkllm_run(h, &in, &ip, &c);
    CHECK(tokens_of(&c) == 2 && c.n_finish == 1, "abort from the callback stops before the next token: %d",
          tokens_of(&c));
    rkllm_destroy(h);
}

typedef struct {
    LLMHandle h;
    int delay_ms;
    double aborted_at;
} AbortJob;

static void* abort_later(void* arg) {
    AbortJob* j = arg;
    sleep_ms(j->delay_ms);
    j->aborted_at = now_ms();
    rkllm_abort(j->h);
    return NULL;
}

static double run_with_abort(LLMHandle h, const char* prompt, int delay_ms, Collector* c, double* latency) {
    AbortJob j = {h, delay_ms, 0};
    pthread_t t;
    double t0 = now_ms();
    pthread_create(&t, NULL, abort_later, &j);
    int rc = run_simple(h, prompt, 1, c);
    double t1 = now_ms();
    pthread_join(t, NULL);
    CHECK(rc == 0, "aborted run returns 0");
    *latency = t1 - j.aborted_at;
    return t1 - t0;
}

static void test_abort(void) {
    LLMHandle h = NULL;
    Collector c;
    double latency;
    /* hang: works at any time scale */
    init_handle(&h, model_file("hang", "time_scale: 0\nfault: hang\n"), 4096, -1);
    double took = run_with_abort(h, "Hello there", 100, &c, &latency);
    CHECK(c.n_finish == 1 && tokens_of(&c) == 0 && c.perf.generate_tokens == 0, "hang ends as an abort");
    CHECK(took >= 90 && latency < 100, "hang blocks until abort: took %.0f ms, latency %.0f", took, latency);
    CHECK(cache_size(h) == T_SYSTEM + T_PREFIX + 2 + T_POSTFIX, "abort after prefill keeps the prefill");
    rkllm_destroy(h);

    if (zero_time) {
        printf("SKIP [%s] timed abort checks (RKLLM_SIM_TIME_SCALE=0)\n", ABI);
        return;
    }
    /* during decode: 50 tok/s = 20 ms per token */
    init_handle(&h, model_file("abort_decode", "init_ms: 0\ndecode_tps: 50\nprefill_tps: 100000\nreply_tokens: 500\n"),
                4096, -1);
    took = run_with_abort(h, "Hello there", 150, &c, &latency);
    CHECK(c.n_finish == 1, "FINISH after abort");
    CHECK(latency < 60, "abort during decode is prompt: %.1f ms", latency);
    CHECK(c.perf.generate_tokens >= 3 && c.perf.generate_tokens <= 9, "tokens before abort: %d",
          c.perf.generate_tokens);
    CHECK(c.perf.generate_tokens == tokens_of(&c), "perf counts the delivered tokens");
    CHECK(c.perf.generate_time_ms >= 100, "generate time measured: %.1f", c.perf.generate_time_ms);
    CHECK(cache_size(h) == T_SYSTEM + T_PREFIX + 2 + T_POSTFIX + c.perf.generate_tokens,
          "keep_history=1 abort keeps what was generated: %d", cache_size(h));
    rkllm_destroy(h);

    /* during prefill: ~5 s of prefill at 100 tok/s */
    char prompt[4096] = "";
    for (int i = 0; i < 500; i++) strcat(prompt, " word");
    init_handle(&h, model_file("abort_prefill", "init_ms: 0\nprefill_tps: 100\n"), 4096, -1);
    took = run_with_abort(h, prompt, 100, &c, &latency);
    CHECK(took < 400 && latency < 60, "abort during prefill is prompt: took %.0f ms, latency %.1f", took, latency);
    CHECK(c.n_finish == 1 && c.perf.prefill_tokens == 0 && c.perf.generate_tokens == 0,
          "aborted prefill: nothing prefilled (%d)", c.perf.prefill_tokens);
    CHECK(cache_size(h) == 0, "aborted prefill leaves the cache as it was");
    rkllm_destroy(h);

    /* abort_ignores_prefill: prefill of 23 tokens at 50 tok/s = 460 ms */
    init_handle(&h, model_file("abort_late", "init_ms: 0\nprefill_tps: 50\nfault: abort_ignores_prefill\n"), 4096, -1);
    took = run_with_abort(h, "Hello there", 100, &c, &latency);
    CHECK(took >= 420 && took < 900, "abort waits for the end of prefill: %.0f ms", took);
    CHECK(c.n_finish == 1 && c.perf.generate_tokens == 0 && c.perf.prefill_tokens == T_SYSTEM + T_PREFIX + 2 + T_POSTFIX,
          "then stops before the first token");
    CHECK(c.perf.prefill_time_ms >= 420, "prefill time measured: %.0f", c.perf.prefill_time_ms);
    rkllm_destroy(h);

    /* prefill timing follows prefill_tps and time_scale; slow_prefill multiplies */
    init_handle(&h, model_file("timing", "init_ms: 0\nprefill_tps: 230\ntime_scale: 0.5\nreply_tokens: 1\n"
                                         "fault: slow_prefill=2\n"),
                4096, -1);
    run_simple(h, "Hello there", 0, &c); /* 23 tokens / 230 tok/s * 0.5 * 2 = 100 ms */
    CHECK(c.perf.prefill_time_ms >= 95 && c.perf.prefill_time_ms < 200, "prefill time %.1f ms", c.perf.prefill_time_ms);
    rkllm_destroy(h);
}

static void test_prompt_cache_and_lora(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("pcache", "time_scale: 0\nreply_tokens: 4\n"), 4096, -1);
    char path[600];
    snprintf(path, sizeof path, "%s/prompt.cache", workdir);
    unlink(path);
    Collector c;
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.save_cache = 1;
    o.cache_path = path;
    run_with(h, "Hello there", &o, &c);
    CHECK(access(path, R_OK) == 0, "prompt cache saved");
    CHECK(cache_size(h) == 0, "keep_history=0");
    CHECK(rkllm_load_prompt_cache(h, path) == 0, "load");
    CHECK(cache_size(h) == T_SYSTEM + T_PREFIX + 2 + T_POSTFIX, "loaded cache: %d", cache_size(h));
    run_simple(h, "Hello there", 0, &c);
    CHECK(c.perf.prefill_tokens == T_PREFIX + 2 + T_POSTFIX, "system part comes from the cache");
    CHECK(rkllm_release_prompt_cache(h) == 0 && cache_size(h) == 0, "release clears");
    char missing[600];
    snprintf(missing, sizeof missing, "%s/missing.cache", workdir);
    CHECK(rkllm_load_prompt_cache(h, missing) == -1, "missing prompt cache");

    char lora[600];
    snprintf(lora, sizeof lora, "%s/adapter.rkllm", workdir);
    FILE* f = fopen(lora, "w");
    fputs("lora\n", f);
    fclose(f);
    RKLLMLoraAdapter ad = {missing, "nope", 1.0f};
    CHECK(rkllm_load_lora(h, &ad) == -1, "missing adapter");
    RKLLMLoraAdapter ok = {lora, "mine", 0.5f};
    CHECK(rkllm_load_lora(h, &ok) == 0, "adapter loaded");
    memset(&o, 0, sizeof o);
    o.lora = "other";
    CHECK(run_with(h, "Hello", &o, &c) == -1 && c.n_error == 1, "unknown lora: ERROR");
    o.lora = "mine";
    CHECK(run_with(h, "Hello", &o, &c) == 0 && c.n_finish == 1, "known lora runs");
    RKLLMCrossAttnParam xp;
    memset(&xp, 0, sizeof xp);
    CHECK(rkllm_set_cross_attn_params(h, &xp) == 0, "cross attn accepted");
    rkllm_destroy(h);
}

/* ---------- multimodal input ---------- */

#define MM_DIM 8 /* image_embed_dim of the vision model below */
static const char* const MM_START = "<|vision_start|>";
static const char* const MM_END = "<|vision_end|>";
static const char* const MM_CONTENT = "<|image_pad|>";

/* The model with the tags at init (1.2); `with_tags` 0 leaves them NULL. */
static int init_vision(LLMHandle* h, const char* path, int max_ctx, int with_tags) {
    RKLLMParam p = rkllm_createDefaultParam();
    p.model_path = path;
    p.max_context_len = max_ctx;
#if RKLLM_ABI_MINOR == 2
    if (with_tags) {
        p.img_start = MM_START;
        p.img_end = MM_END;
        p.img_content = MM_CONTENT;
    }
    return rkllm_init(h, &p, callback);
#else
    (void)with_tags;
    RKLLMCallback cb;
    memset(&cb, 0, sizeof cb);
    cb.result_callback = callback;
    return rkllm_init(h, &p, &cb);
#endif
}

/* A multimodal run; on 1.3 the tags go with the request unless `no_tags`. */
static int run_mm(LLMHandle h, const char* prompt, float* embed, size_t n_image, size_t n_tokens, int keep_history,
                  int no_tags, Collector* c) {
    collector_reset(c);
    RKLLMInput in;
    memset(&in, 0, sizeof in);
    in.role = "user";
    in.input_type = RKLLM_INPUT_MULTIMODAL;
    in.multimodal_input.prompt = (char*)prompt;
#if RKLLM_ABI_MINOR == 2
    (void)no_tags;
    in.multimodal_input.image_embed = embed;
    in.multimodal_input.n_image = n_image;
    in.multimodal_input.n_image_tokens = n_tokens;
    in.multimodal_input.image_width = 448;
    in.multimodal_input.image_height = 448;
#else
    in.multimodal_input.image.image_embed = embed;
    in.multimodal_input.image.n_image = n_image;
    in.multimodal_input.image.n_image_tokens = n_tokens;
    in.multimodal_input.image.image_width = 448;
    in.multimodal_input.image.image_height = 448;
    if (!no_tags) {
        in.multimodal_input.image.image_start = MM_START;
        in.multimodal_input.image.image_end = MM_END;
        in.multimodal_input.image.image_content = MM_CONTENT;
    }
#endif
    RKLLMInferParam ip;
    memset(&ip, 0, sizeof ip);
    ip.keep_history = keep_history;
    return rkllm_run(h, &in, &ip, c);
}

/* Exactly n floats (malloc'd, so valgrind sees a read past them), deterministic from seed. */
static float* mm_floats(size_t n, unsigned seed) {
    float* f = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) f[i] = (float)((seed * 31u + (unsigned)i * 7u) % 101u) / 50.0f - 1.0f;
    return f;
}

/* FNV-1a 64 over the floats' bytes: the digest the trace shows for an image. */
static unsigned long long mm_digest(const float* f, size_t n) {
    unsigned long long h = 0xcbf29ce484222325ULL;
    const unsigned char* b = (const unsigned char*)f;
    for (size_t i = 0; i < n * sizeof(float); i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* 1 if the trace has a run line containing every one of the given fragments. */
static int trace_has_run_with(const char* a, const char* b) {
    char path[600];
    snprintf(path, sizeof path, "%s/trace.jsonl", workdir);
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    char* line = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getline(&line, &cap, f) > 0) {
        found = strstr(line, "{\"call\":\"run\"") && strstr(line, a) && (!b || strstr(line, b));
    }
    free(line);
    fclose(f);
    return found;
}

static void test_multimodal(void) {
    const char* vl = model_file("vl", "time_scale: 0\nreply_tokens: 5\nimage_embed_dim: %d\n", MM_DIM);
    LLMHandle h = NULL;
    CHECK(init_vision(&h, vl, 4096, 1) == 0 && h, "vision model loads");
    Collector c;
    const size_t tokens = 4;
    float* one = mm_floats(tokens * MM_DIM, 1);
    /* "<|vision_start|><|vision_end|>What is it?" = 2 tags + What, " is", " it", "?" = 6, plus 4 image tokens */
    const int text = 6;
    CHECK(run_mm(h, "<image>What is it?", one, 1, tokens, 1, 0, &c) == 0 && c.n_finish == 1, "one image runs");
    CHECK(c.perf.prefill_tokens == T_SYSTEM + T_PREFIX + text + T_POSTFIX + (int)tokens,
          "image tokens are prefilled: %d", c.perf.prefill_tokens);
    CHECK(cache_size(h) == c.perf.prefill_tokens + c.perf.generate_tokens, "image tokens stay in the KV cache: %d",
          cache_size(h));
    char digest[40];
    snprintf(digest, sizeof digest, "\"digests\":[\"%016llx\"]", mm_digest(one, tokens * MM_DIM));
    CHECK(trace_has_run_with(digest, "\"floats_read\":32"), "the trace shows the image's digest %s", digest);
    CHECK(trace_has_run_with("<|vision_start|><|image_pad|><|image_pad|><|image_pad|><|image_pad|><|vision_end|>What",
                             NULL),
          "the prefilled text has the image expanded to its tags");
    char first[sizeof c.text];
    memcpy(first, c.text, c.len);
    size_t first_len = c.len;

    /* another picture, same prompt and cache size: another answer */
    rkllm_clear_kv_cache(h, 0, NULL, NULL);
    float* other = mm_floats(tokens * MM_DIM, 2);
    CHECK(run_mm(h, "<image>What is it?", other, 1, tokens, 1, 0, &c) == 0, "other image runs");
    CHECK(c.len != first_len || memcmp(c.text, first, c.len) != 0, "the answer depends on the image");

    /* two images: two tags, n_image 2, the floats of both */
    rkllm_clear_kv_cache(h, 0, NULL, NULL);
    float* two = mm_floats(2 * tokens * MM_DIM, 3);
    CHECK(run_mm(h, "<image><image>Compare.", two, 2, tokens, 0, 0, &c) == 0, "two images run");
    /* 4 tags + Compa, re, . = 7 */
    CHECK(c.perf.prefill_tokens == T_SYSTEM + T_PREFIX + 7 + T_POSTFIX + 2 * (int)tokens, "two images: %d",
          c.perf.prefill_tokens);
    snprintf(digest, sizeof digest, "\"%016llx\",\"%016llx\"]", mm_digest(two, tokens * MM_DIM),
             mm_digest(two + tokens * MM_DIM, tokens * MM_DIM));
    CHECK(trace_has_run_with(digest, "\"n_image\":2"), "one digest per image %s", digest);
    CHECK(cache_size(h) == 0, "keep_history=0 keeps nothing");

    /* refusals: ERROR callback, -1, cache unchanged */
    CHECK(run_mm(h, "<image><image>Compare.", two, 1, tokens, 1, 0, &c) == -1 && c.n_error == 1,
          "two <image> tags with n_image 1: refused");
    CHECK(run_mm(h, "What is it?", one, 1, tokens, 1, 0, &c) == -1 && c.n_error == 1, "no <image> tag: refused");
    CHECK(run_mm(h, "<image>What is it?", one, 0, tokens, 1, 0, &c) == -1, "n_image 0: refused");
    CHECK(run_mm(h, "<image>What is it?", one, 1, 0, 1, 0, &c) == -1, "n_image_tokens 0: refused");
    CHECK(run_mm(h, "<image>What is it?", NULL, 1, tokens, 1, 0, &c) == -1, "NULL image_embed: refused");
    CHECK(run_mm(h, NULL, one, 1, tokens, 1, 0, &c) == -1, "NULL prompt: refused");
#if RKLLM_ABI_MINOR == 3
    CHECK(run_mm(h, "<image>What is it?", one, 1, tokens, 1, 1, &c) == -1, "1.3: no tags in the request: refused");
#endif
    CHECK(cache_size(h) == 0, "refused runs leave the cache alone");
    CHECK(trace_has_run_with("the prompt has 2 <image> tag(s) but n_image is 1", NULL), "the reason is traced");
    rkllm_destroy(h);

    /* context overflow counts the image tokens */
    CHECK(init_vision(&h, vl, T_SYSTEM + T_PREFIX + text + T_POSTFIX + 3, 1) == 0, "small context");
    CHECK(run_mm(h, "<image>What is it?", one, 1, tokens, 1, 0, &c) == -1 && c.n_error == 1,
          "image tokens overflow the context");
    rkllm_destroy(h);

#if RKLLM_ABI_MINOR == 2
    CHECK(init_vision(&h, vl, 4096, 0) == 0, "1.2: a vision model without tags loads");
    CHECK(run_mm(h, "<image>What is it?", one, 1, tokens, 1, 0, &c) == -1, "1.2: no tags at init: refused");
    rkllm_destroy(h);
#endif
    /* a text model takes no images */
    CHECK(init_vision(&h, model_file("text_only", "time_scale: 0\n"), 4096, 1) == 0, "text model loads");
    CHECK(run_mm(h, "<image>What is it?", one, 1, tokens, 1, 0, &c) == -1 && c.n_error == 1,
          "a text model refuses multimodal input");
    rkllm_destroy(h);
    free(one);
    free(other);
    free(two);
}

typedef struct {
    int index;
    int fails;
} ThreadJob;

static void* thread_main(void* arg) {
    ThreadJob* j = arg;
    char name[32];
    snprintf(name, sizeof name, "thread%d", j->index);
    LLMHandle h = NULL;
    if (init_handle(&h, model_file(name, "time_scale: 0\nname: %s\nreply_tokens: 30\n", name), 2048, -1) != 0 || !h) {
        j->fails++;
        return NULL;
    }
    Collector* c = malloc(sizeof(Collector));
    for (int i = 0; i < 25; i++) {
        char prompt[128], expected[64];
        snprintf(expected, sizeof expected, "thread %d run %d \xe6\xa8\xa1\xe5\x9e\x8b", j->index, i);
        snprintf(prompt, sizeof prompt, "[[say:%s]]", expected);
        if (run_simple(h, prompt, 1, c) != 0 || c->len != strlen(expected) || memcmp(c->text, expected, c->len) != 0)
            j->fails++;
        if (run_simple(h, "tell me more", 0, c) != 0 || c->perf.generate_tokens != 30) j->fails++;
        if (i % 5 == 4) rkllm_clear_kv_cache(h, 1, NULL, NULL);
    }
    free(c);
    rkllm_destroy(h);
    return NULL;
}

static void test_two_handles(void) {
    pthread_t t[2];
    ThreadJob jobs[2] = {{1, 0}, {2, 0}};
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, thread_main, &jobs[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(jobs[0].fails == 0 && jobs[1].fails == 0, "two handles on two threads: %d + %d failures", jobs[0].fails,
          jobs[1].fails);
}

static void test_async(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("async", "time_scale: 0\nreply_tokens: 6\n"), 4096, -1);
    static Collector c;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    collector_reset(&c);
    c.lock = &lock;
    RKLLMInput in;
    memset(&in, 0, sizeof in);
    in.role = "user";
    in.prompt_input = "hi";
    RKLLMInferParam ip;
    memset(&ip, 0, sizeof ip);
    CHECK(rkllm_run_async(h, &in, &ip, &c) == 0, "async accepted");
    int finished = 0;
    for (int i = 0; i < 500 && !finished; i++) {
        sleep_ms(10);
        pthread_mutex_lock(&lock);
        finished = c.n_finish;
        pthread_mutex_unlock(&lock);
    }
    CHECK(rkllm_destroy(h) == 0, "destroy joins the async thread");
    CHECK(c.n_finish == 1 && tokens_of(&c) == 6, "async run completes");
    /* destroy while an async run hangs: the run is aborted and joined */
    init_handle(&h, model_file("async_hang", "time_scale: 0\nfault: hang\n"), 4096, -1);
    collector_reset(&c);
    c.lock = &lock;
    CHECK(rkllm_run_async(h, &in, &ip, &c) == 0, "async accepted");
    sleep_ms(50);
    CHECK(rkllm_destroy(h) == 0, "destroy aborts a hanging async run");
    CHECK(c.n_finish == 1 && tokens_of(&c) == 0, "hanging async run finished as an abort");
}



/* ---------- the last hidden layer (embeddings) ---------- */

/* Number of trace lines containing needle. */
static int trace_lines_with(const char* needle) {
    char path[600];
    snprintf(path, sizeof path, "%s/trace.jsonl", workdir);
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    char* line = NULL;
    size_t cap = 0;
    int n = 0;
    while (getline(&line, &cap, f) > 0) n += strstr(line, needle) != NULL;
    free(line);
    fclose(f);
    return n;
}

static void test_hidden_layer(void) {
    LLMHandle h = NULL;
    CHECK(init_handle(&h, model_file("embed", "time_scale: 0\nkind: embedding\nembd_size: 16\n"), 512, -1) == 0,
          "embedding model loads");
    Collector* a = calloc(1, sizeof(Collector));
    Collector* b = calloc(1, sizeof(Collector));
    CHECK(run_hidden(h, "Hello there", 0, 0, a) == 0, "hidden run");
    /* one row per prefilled token: 13 + 3 + 2 + 5 */
    CHECK(a->hidden_callbacks == 1 && a->hidden_rows == T_SYSTEM + T_PREFIX + 2 + T_POSTFIX && a->hidden_embd == 16,
          "rows %d x %d in %d callbacks", a->hidden_rows, a->hidden_embd, a->hidden_callbacks);
    CHECK(a->n_finish == 1 && a->perf.generate_tokens == 0 && a->perf.prefill_tokens == a->hidden_rows &&
              a->len == 0 && a->bad_state == 0,
          "then FINISH, nothing generated, no text");
    int rows = a->hidden_rows, embd = a->hidden_embd;
    float lo = 1, hi = -1;
    for (int i = 0; i < rows * embd; i++) {
        if (a->hidden[i] < lo) lo = a->hidden[i];
        if (a->hidden[i] > hi) hi = a->hidden[i];
    }
    CHECK(lo >= -1 && hi < 1 && hi - lo > 1, "values spread over [-1, 1): %f..%f", lo, hi);
    CHECK(memcmp(a->hidden, a->hidden + embd, (size_t)embd * sizeof(float)) != 0, "rows differ from each other");
    run_hidden(h, "Hello there", 0, 0, b);
    CHECK(b->hidden_rows == rows && memcmp(a->hidden, b->hidden, (size_t)rows * embd * sizeof(float)) == 0,
          "equal input, equal rows");
    run_hidden(h, "Hello world", 0, 0, b);
    size_t last = (size_t)(rows - 1) * embd;
    CHECK(b->hidden_rows == rows && memcmp(a->hidden + last, b->hidden + last, (size_t)embd * sizeof(float)) != 0,
          "a different input changes the last row");
    CHECK(memcmp(a->hidden, b->hidden, (size_t)(T_SYSTEM + T_PREFIX) * embd * sizeof(float)) == 0,
          "the common prefix keeps its rows (causal)");
    /* the run ended cleanly: keep_history=0 leaves the cache empty */
    CHECK(cache_size(h) == 0, "cache still empty");
    /* 1.3: returning 2 releases the output buffer; the run ends as usual */
    CHECK(run_hidden(h, "Hello there", 0, 2, b) == 0 && b->n_finish == 1, "return 2 accepted");
    CHECK(trace_lines_with("\"output_released\":true") == (RKLLM_ABI_MINOR >= 3 ? 1 : 0), "release traced on 1.3");
    /* an embedding model asked to generate ends at once */
    run_simple(h, "Hello there", 0, a);
    CHECK(a->n_finish == 1 && a->perf.generate_tokens == 0 && a->len == 0, "embedding model: no chat answer");
    /* [[error]] fails the run, the model keeps working */
    CHECK(run_hidden(h, "chunk 3 [[error]]", 0, 0, a) == -1 && a->n_error == 1 && a->hidden_callbacks == 0,
          "[[error]]: ERROR, no rows");
    CHECK(run_hidden(h, "chunk 4", 0, 0, a) == 0 && a->hidden_callbacks == 1, "next run fine");
    rkllm_destroy(h);

    /* hidden_then_generate: a runtime that goes on generating after the states (unknown for real runtimes) */
    init_handle(&h, model_file("hidden_gen", "time_scale: 0\nembd_size: 4\nreply_tokens: 12\nfault: hidden_then_generate\n"),
                512, -1);
    run_hidden(h, "Hello there", 0, 0, a);
    CHECK(a->hidden_callbacks == 1 && a->hidden_embd == 4 && tokens_of(a) == 12 && a->perf.generate_tokens == 12 &&
              a->n_finish == 1,
          "states, then 12 generated tokens: %d", tokens_of(a));
    rkllm_destroy(h);

    /* the default speed of an embedding model: 15 ms + tokens at 640 tokens/s */
    if (!zero_time) {
        init_handle(&h, model_file("embed_timed", "init_ms: 0\nkind: embedding\n"), 512, -1);
        run_hidden(h, "Hello there", 0, 0, a); /* 15 + 23 / 640 s = 51 ms */
        CHECK(a->perf.prefill_time_ms >= 48 && a->perf.prefill_time_ms < 250, "embedding speed: %.1f ms",
              a->perf.prefill_time_ms);
        CHECK(a->hidden_embd == 1024, "default width 1024: %d", a->hidden_embd);
        rkllm_destroy(h);
    }
    free(a);
    free(b);
}

/* ---------- structured output: [[json]] ---------- */

#define PERSON_SCHEMA                                                                                        \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\","     \
    "\"minimum\":0},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":2}},"         \
    "\"required\":[\"name\",\"age\"]}"
#define PERSON "{\"name\": \"sim\", \"age\": 1, \"tags\": [\"sim\", \"sim2\"]}"

static int text_is(Collector* c, const char* expected) {
    c->text[c->len] = 0;
    return strcmp(c->text, expected) == 0;
}

static void test_json(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("json", "time_scale: 0\nreply_tokens: 12\nthinking: 1\n"), 4096, -1);
    Collector* c = calloc(1, sizeof(Collector));
    static const struct {
        const char* directive;
        const char* expected;
    } cases[] = {
        {"[[json]]", PERSON},
        {"[[json:valid]]", PERSON},
        {"[[json:invalid]]", "{\"age\": 1, \"tags\": [\"sim\", \"sim2\"]}"},
        {"[[json:trailing_comma]]", "{\"name\": \"sim\", \"age\": 1, \"tags\": [\"sim\", \"sim2\"],}"},
        {"[[json:unclosed]]", "{\"name\": \"sim\", \"age\": 1, \"tags\": [\"sim\", \"sim2\"]"},
        {"[[json:fenced]]", "```json\n" PERSON "\n```"},
        {"[[json:wrapped]]", "Sure, here it is:\n\n" PERSON "\n\nI hope this helps."},
    };
    char prompt[2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(prompt, sizeof prompt, "Reply with JSON for this schema: " PERSON_SCHEMA "\nA person. %s",
                 cases[i].directive);
        run_simple(h, prompt, 0, c);
        CHECK(text_is(c, cases[i].expected) && c->bad_state == 0, "%s: '%s'", cases[i].directive, c->text);
    }
    snprintf(prompt, sizeof prompt, "Schema: " PERSON_SCHEMA " [[json:prose]]");
    run_simple(h, prompt, 0, c);
    CHECK(c->perf.generate_tokens == 12 && !memchr(c->text, '{', c->len), "prose: no JSON");
    /* a thinking run thinks first */
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.thinking = 1;
    snprintf(prompt, sizeof prompt, "Schema: " PERSON_SCHEMA " [[json]]");
    run_with(h, prompt, &o, c);
    c->text[c->len] = 0;
    CHECK(strncmp(c->text, "<think>\n", 8) == 0 && strstr(c->text, "</think>\n\n" PERSON) != NULL, "think, then JSON");
    /* no schema anywhere: any JSON object */
    run_simple(h, "Answer in JSON. [[json]]", 0, c);
    CHECK(text_is(c, "{\"answer\": \"sim\"}"), "no schema: '%s'", c->text);
    run_simple(h, "Answer in JSON. [[json:invalid]]", 0, c);
    CHECK(text_is(c, "[\"not an object\"]"), "no schema, invalid: '%s'", c->text);
    /* $defs/$ref, enum, format, anyOf with null; wrapped as OpenAI's response_format */
    run_simple(h,
               "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"strict\":true,\"schema\":{\"$defs\":{"
               "\"Color\":{\"enum\":[\"red\",\"green\"],\"type\":\"string\"}},\"properties\":{\"color\":{\"$ref\":"
               "\"#/$defs/Color\"},\"when\":{\"type\":\"string\",\"format\":\"date\"},\"note\":{\"anyOf\":[{\"type\":"
               "\"null\"},{\"type\":\"string\"}]},\"ok\":{\"type\":\"boolean\"},\"score\":{\"type\":\"number\","
               "\"exclusiveMaximum\":1}},\"required\":[\"color\"],\"type\":\"object\"}}} [[json]]",
               0, c);
    CHECK(text_is(c, "{\"color\": \"red\", \"when\": \"2025-01-01\", \"note\": \"sim\", \"ok\": true, \"score\": 0}"),
          "pydantic-style schema: '%s'", c->text);
    /* tuples (2020-12 prefixItems, draft 7 items lists), allOf merged into one object, a schema that is a $ref */
    static const struct {
        const char* schema;
        const char* expected;
    } shapes[] = {
        {"{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"number\"},"
         "{\"type\":\"string\"},{\"type\":\"boolean\"}],\"items\":false,\"minItems\":3,\"maxItems\":3}},"
         "\"required\":[\"t\"]}",
         "{\"t\": [1, \"sim2\", true]}"},
        {"{\"type\":\"array\",\"items\":[{\"type\":\"integer\"},{\"type\":\"string\"}],\"additionalItems\":false}",
         "[1, \"sim2\"]"},
        {"{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"]},"
         "{\"$ref\":\"#/$defs/B\"}],\"$defs\":{\"B\":{\"type\":\"object\",\"properties\":{\"b\":{\"type\":"
         "\"integer\"},\"a\":{\"type\":\"string\"}},\"required\":[\"b\",\"c\",\"a\"]}}}",
         "{\"a\": \"sim\", \"b\": 1, \"c\": \"sim\"}"},
        {"{\"$ref\":\"#/definitions/P\",\"definitions\":{\"P\":{\"type\":\"object\",\"properties\":{\"ok\":"
         "{\"type\":\"boolean\"}},\"required\":[\"ok\"]}}}",
         "{\"ok\": true}"},
        /* numbers: the bounds in both drafts' forms, a range narrower than the steps, multipleOf, digits kept */
        {"{\"type\":\"object\",\"properties\":{\"big\":{\"type\":\"number\",\"minimum\":1234567.25,\"maximum\":"
         "1234568},\"narrow\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":0.1},\"five\":{"
         "\"type\":\"integer\",\"minimum\":12,\"multipleOf\":5},\"tenth\":{\"type\":\"number\",\"minimum\":0.25,"
         "\"maximum\":0.35,\"multipleOf\":0.1},\"old\":{\"type\":\"integer\",\"minimum\":5,\"exclusiveMinimum\":"
         "true},\"half\":{\"type\":\"integer\",\"minimum\":2.5,\"maximum\":3},\"plain\":{\"type\":\"integer\","
         "\"minimum\":-9007199254740991,\"maximum\":9007199254740991},\"above\":{\"type\":\"number\","
         "\"exclusiveMinimum\":0}}}",
         "{\"big\": 1234568, \"narrow\": 0.05, \"five\": 15, \"tenth\": 0.3, \"old\": 6, \"half\": 3, "
         "\"plain\": 1, \"above\": 1}"},
        /* a "number" is whole as a model writes it (Codex parses its numbers as usize), a fraction only when the
           bounds or multipleOf leave no whole number; opencode's exclusiveMinimum 0 beside the safe minimum */
        {"{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"number\"},\"list\":{\"type\":\"array\","
         "\"items\":{\"type\":\"number\"},\"minItems\":2},\"low\":{\"type\":\"number\",\"minimum\":250},"
         "\"capped\":{\"type\":\"number\",\"maximum\":-0.5},\"frac\":{\"type\":\"number\",\"minimum\":2.5,"
         "\"maximum\":2.7},\"third\":{\"type\":\"number\",\"multipleOf\":0.3},\"timeout\":{\"type\":\"integer\","
         "\"exclusiveMinimum\":0,\"minimum\":-9007199254740991},\"ratio\":{\"type\":\"number\",\"minimum\":"
         "-9007199254740991,\"exclusiveMinimum\":0,\"exclusiveMaximum\":1}},\"required\":[\"ms\"]}",
         "{\"ms\": 1, \"list\": [1, 2], \"low\": 250, \"capped\": -1, \"frac\": 2.6, \"third\": 1.2, "
         "\"timeout\": 1, \"ratio\": 0.5}"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        snprintf(prompt, sizeof prompt, "Schema: %s [[json]]", shapes[i].schema);
        run_simple(h, prompt, 0, c);
        CHECK(text_is(c, shapes[i].expected), "shape %zu: '%s'", i, c->text);
    }
    run_simple(h, "Schema: {\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}},{\"type\":"
                  "\"object\",\"properties\":{\"b\":{\"type\":\"string\"}},\"required\":[\"b\"]}]} [[json:invalid]]",
               0, c);
    CHECK(text_is(c, "[\"not an object\"]"), "allOf, invalid: '%s'", c->text);
    /* the schema in the system part (a guided system prompt), the directive in the user message */
    rkllm_set_chat_template(h, "<|im_start|>system\nReply with JSON matching {\"type\":\"array\",\"items\":"
                               "{\"type\":\"integer\"},\"minItems\":3}<|im_end|>\n",
                            "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
    run_simple(h, "Three numbers. [[json]]", 0, c);
    CHECK(text_is(c, "[1, 2, 3]"), "schema from the system part: '%s'", c->text);
    run_simple(h, "Three numbers. [[json:invalid]]", 0, c);
    CHECK(text_is(c, "{\"not\": \"an array\"}"), "invalid array: '%s'", c->text);
    rkllm_destroy(h);

    /* outcome lists: a retry as a new turn on the kept conversation takes the next outcome */
    init_handle(&h, model_file("json_seq", "time_scale: 0\nreply_tokens: 7\n"), 4096, -1);
    snprintf(prompt, sizeof prompt, "Schema: " PERSON_SCHEMA " [[json:invalid,valid]]");
    run_simple(h, prompt, 1, c);
    CHECK(text_is(c, "{\"age\": 1, \"tags\": [\"sim\", \"sim2\"]}"), "attempt 1 invalid");
    run_simple(h, "That is missing \"name\". Reply with the corrected JSON only.", 1, c);
    CHECK(text_is(c, PERSON), "the retry (no directive, same conversation) is valid: '%s'", c->text);
    run_simple(h, "Thanks!", 1, c);
    CHECK(c->perf.generate_tokens == 7 && !memchr(c->text, '{', c->len), "list used up: an ordinary answer");
    /* a retry that resends the whole conversation carries the directive again: next outcome, then the list restarts */
    rkllm_clear_kv_cache(h, 0, NULL, NULL);
    run_simple(h, prompt, 0, c);
    CHECK(text_is(c, "{\"age\": 1, \"tags\": [\"sim\", \"sim2\"]}"), "first attempt again invalid");
    run_simple(h, prompt, 0, c);
    CHECK(text_is(c, PERSON), "resent: valid");
    run_simple(h, prompt, 0, c);
    CHECK(text_is(c, "{\"age\": 1, \"tags\": [\"sim\", \"sim2\"]}"), "a new request: the list restarts");
    run_simple(h, "x [[json:nonsense]]", 0, c);
    CHECK(c->perf.generate_tokens == 7 && !memchr(c->text, '{', c->len), "unknown outcome: prose");
    rkllm_destroy(h);

    /* the schema as the one native function tool: the call's arguments follow its parameters */
    init_handle(&h, model_file("json_tool", "time_scale: 0\n"), 4096, -1);
    rkllm_set_function_tools(h, "", "[{\"type\":\"function\",\"function\":{\"name\":\"record_person\",\"parameters\":"
                                    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"unit\":"
                                    "{\"enum\":[\"c\",\"f\"]}},\"required\":[\"name\"]}}}]",
                             "tool_response");
    run_simple(h, "Extract the person. [[json]]", 0, c);
    CHECK(text_is(c, "<tool_call>\n{\"name\": \"record_person\", \"arguments\": {\"name\": \"sim\", \"unit\": \"c\"}}\n"
                     "</tool_call>"),
          "tool call with schema arguments: '%s'", c->text);
    run_simple(h, "Extract the person. [[json:invalid]]", 0, c);
    CHECK(text_is(c, "<tool_call>\n{\"name\": \"record_person\", \"arguments\": {\"unit\": \"c\"}}\n</tool_call>"),
          "invalid arguments: '%s'", c->text);
    run_simple(h, "Extract the person. [[json:unclosed]]", 0, c);
    CHECK(text_is(c, "<tool_call>\n{\"name\": \"record_person\", \"arguments\": {\"name\": \"sim\", \"unit\": \"c\"}\n"
                     "</tool_call>"),
          "unclosed call: '%s'", c->text);
    run_simple(h, "Extract the person. [[json:prose]]", 0, c);
    CHECK(!strstr(c->text, "<tool_call>"), "prose: no call");
    rkllm_destroy(h);
    free(c);
    CHECK(trace_lines_with("\"json\":\"trailing_comma\"") == 1, "the outcome is traced");
}

/* ---------- structured output asked for by client libraries, with the schema in the prompt ---------- */

/* Vercel AI SDK 4 (generateObject, mode "json"): the schema is appended to the system message (injectJsonInstruction). */
#define AI_SDK_SYSTEM                                                                                            \
    "<|im_start|>system\nYou extract people.\n\nJSON schema:\n{\"type\":\"object\",\"properties\":{\"name\":{\"type\":" \
    "\"string\"},\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":120},\"kind\":{\"type\":\"string\",\"enum\":" \
    "[\"cat\",\"dog\"]},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":2}},\"required\":"    \
    "[\"name\",\"age\",\"kind\",\"tags\"],\"additionalProperties\":false,\"$schema\":"                                \
    "\"http://json-schema.org/draft-07/schema#\"}\nYou MUST answer with a JSON object that matches the JSON schema "    \
    "above.<|im_end|>\n"
/* LangChain.js StructuredOutputParser.getFormatInstructions(), as a prompt template leaves it (the example's braces
 * doubled), in the user message. */
#define LANGCHAIN_PROMPT                                                                                         \
    "Answer the user query.\nYou must format your output as a JSON value that adheres to a given \"JSON Schema\" "  \
    "instance.\n\n\"JSON Schema\" is a declarative language that allows you to annotate and validate JSON "         \
    "documents.\n\nFor example, the example \"JSON Schema\" instance {{\"properties\": {{\"foo\": {{\"description\": " \
    "\"a list of test words\", \"type\": \"array\", \"items\": {{\"type\": \"string\"}}}}}}, \"required\": "         \
    "[\"foo\"]}}\nwould match an object with one required property, \"foo\". The \"type\" property specifies "       \
    "\"foo\" must be an \"array\", and the \"description\" property semantically describes it as \"a list of test "  \
    "words\". The items within \"foo\" must be strings.\nThus, the object {{\"foo\": [\"bar\", \"baz\"]}} is a "    \
    "well-formatted instance of this example \"JSON Schema\". The object {{\"properties\": {{\"foo\": [\"bar\", "   \
    "\"baz\"]}}}} is not well-formatted.\n\nYour output will be parsed and type-checked according to the provided " \
    "schema instance, so make sure all fields in your output match the schema exactly and there are no trailing "  \
    "commas!\n\nHere is the JSON Schema instance your output must adhere to. Include the enclosing markdown "        \
    "codeblock:\n```json\n{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","       \
    "\"properties\":{\"city\":{\"type\":\"string\"},\"days\":{\"type\":\"integer\",\"minimum\":1}},\"required\":"      \
    "[\"city\",\"days\"],\"additionalProperties\":false}\n```\n\nPlan a trip."

static void test_json_client_prompts(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("json_clients", "time_scale: 0\nreply_tokens: 9\n"), 4096, -1);
    Collector* c = calloc(1, sizeof(Collector));
    /* the server's json_object guidance in the user message, the schema in the system part */
    rkllm_set_chat_template(h, AI_SDK_SYSTEM, "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n");
    run_simple(h, "Make up a person.\n\nAnswer with a single JSON object and nothing else: no prose, no code fence.", 0,
               c);
    CHECK(text_is(c, "{\"name\": \"sim\", \"age\": 1, \"kind\": \"cat\", \"tags\": [\"sim\", \"sim2\"]}"),
          "AI SDK's schema in the system part: '%s'", c->text);
    run_simple(h, "Make up a person. [[json:invalid]]", 0, c);
    CHECK(text_is(c, "{\"age\": 1, \"kind\": \"cat\", \"tags\": [\"sim\", \"sim2\"]}"), "the directive still decides");
    rkllm_clear_kv_cache(h, 0, NULL, NULL);
    rkllm_set_chat_template(h, "", "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n");
    /* LangChain's instructions: the last schema (not the example), also without any server guidance */
    run_simple(h, LANGCHAIN_PROMPT, 0, c);
    CHECK(text_is(c, "{\"city\": \"sim\", \"days\": 1}"), "LangChain's format instructions: '%s'", c->text);
    run_simple(h, "What is a JSON schema, in one sentence?", 0, c);
    CHECK(c->perf.generate_tokens == 9 && !memchr(c->text, '{', c->len), "the words without a schema: prose");
    rkllm_destroy(h);
    free(c);
}

/* ---------- the faults of runtime 1.3.0 (none of them in the 1.2 build) ---------- */

static int contains(const Collector* c, const char* needle) {
    return memmem(c->text, c->len, needle, strlen(needle)) != NULL;
}

static void test_think_finish(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("think_finish", "time_scale: 0\nthinking: 1\nreply_tokens: 40\nfault: think_finish\n"),
                4096, -1);
    Collector c;
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.thinking = 1;
    o.keep_history = 1;
    CHECK(run_with(h, "Why is the sky blue?", &o, &c) == 0 && c.n_finish == 1, "thinking run");
#if RKLLM_ABI_MINOR >= 3
    CHECK(c.len > 8 && strncmp(c.text, "<think>\n", 8) == 0 && !contains(&c, "</think>") && c.text[c.len - 1] == '\n',
          "1.3: FINISH at </think>, the tag swallowed: '%.*s'", (int)c.len, c.text);
#else
    CHECK(contains(&c, "\n</think>\n\n") && c.text[c.len - 1] == '.', "1.2: the whole answer");
#endif
    int thought = tokens_of(&c);
    CHECK(cache_size(h) == c.perf.prefill_tokens + thought, "the cache holds what was delivered");
    /* the follow-up run meant to produce the answer */
    CHECK(run_with(h, "Go on.", &o, &c) == 0 && c.n_finish == 1 && c.n_error == 0, "follow-up run");
#if RKLLM_ABI_MINOR >= 3
    CHECK(tokens_of(&c) >= 13 && tokens_of(&c) <= 27 && !contains(&c, "<think>"),
          "1.3: the follow-up stops after 13-27 tokens, as a normal finish: %d", tokens_of(&c));
#else
    CHECK(tokens_of(&c) > 40, "1.2: a whole (thinking) answer: %d", tokens_of(&c));
#endif
    /* a third run is a new turn again: it thinks and (1.3) ends at </think> */
    run_with(h, "And why is it red at dusk?", &o, &c);
    CHECK(strncmp(c.text, "<think>\n", 8) == 0, "third run thinks");
#if RKLLM_ABI_MINOR >= 3
    CHECK(!contains(&c, "</think>"), "1.3: third run ends at </think> again");
    /* the follow-up as the assistant's own turn: EOS after 13 tokens */
    RunOpts a = o;
    a.role = "assistant";
    run_with(h, "", &a, &c);
    CHECK(tokens_of(&c) == 13, "1.3: assistant follow-up stops after 13 tokens: %d", tokens_of(&c));
    /* keep_history=0: nothing of the thinking stays, the next run is a fresh turn */
    o.keep_history = 0;
    run_with(h, "Why?", &o, &c);
    run_with(h, "Why?", &o, &c);
    CHECK(strncmp(c.text, "<think>\n", 8) == 0 && !contains(&c, "</think>"), "1.3: no follow-up state after keep_history=0");
    /* a cleared cache forgets the thinking too */
    o.keep_history = 1;
    run_with(h, "Why?", &o, &c);
    rkllm_clear_kv_cache(h, 1, NULL, NULL);
    run_with(h, "Why?", &o, &c);
    CHECK(strncmp(c.text, "<think>\n", 8) == 0, "1.3: after a clear the run thinks again");
#endif
    /* enable_thinking=0: the model does not think, the answer is whole */
    rkllm_clear_kv_cache(h, 0, NULL, NULL);
    o.thinking = 0;
    run_with(h, "Why?", &o, &c);
    CHECK(tokens_of(&c) == 40 && !contains(&c, "<think>"), "no thinking: whole answer: %d", tokens_of(&c));
    /* after rkllm_set_chat_template the flag has no effect: think_finish does not fire */
    rkllm_set_chat_template(h, "<|im_start|>system\nBe brief.<|im_end|>\n", "<|im_start|>user\n",
                            "<|im_end|>\n<|im_start|>assistant\n");
    o.thinking = 1;
    run_with(h, "Why?", &o, &c);
    CHECK(contains(&c, "</think>") && c.text[c.len - 1] == '.', "think_finish: no effect after a chat template");
    rkllm_destroy(h);

    init_handle(&h, model_file("think_finish_tpl", "time_scale: 0\nthinking: 1\nreply_tokens: 40\n"
                                                   "fault: think_finish_even_with_template\n"), 4096, -1);
    rkllm_set_chat_template(h, "<|im_start|>system\nBe brief.<|im_end|>\n", "<|im_start|>user\n",
                            "<|im_end|>\n<|im_start|>assistant\n");
    run_with(h, "Why?", &o, &c);
#if RKLLM_ABI_MINOR >= 3
    CHECK(strncmp(c.text, "<think>\n", 8) == 0 && !contains(&c, "</think>"),
          "1.3 think_finish_even_with_template: ends at </think> after a template");
#else
    CHECK(contains(&c, "</think>") && c.text[c.len - 1] == '.', "1.2: whole answer");
#endif
    /* the flag off: no thinking mode in the runtime, the template's thinking comes through whole */
    o.thinking = 0;
    rkllm_clear_kv_cache(h, 0, NULL, NULL);
    run_with(h, "Why?", &o, &c);
    CHECK(contains(&c, "</think>") && c.text[c.len - 1] == '.', "enable_thinking=0: whole answer after a template");
    /* [[say:]] text is what the model emits: its </think> ends the run too */
    o.thinking = 1;
    o.keep_history = 0;
    run_with(h, "[[say:<think>a plan</think>The answer.]]", &o, &c);
    c.text[c.len] = 0;
#if RKLLM_ABI_MINOR >= 3
    CHECK(strcmp(c.text, "<think>a plan") == 0, "1.3: say output cut at </think>: '%s'", c.text);
#else
    CHECK(strcmp(c.text, "<think>a plan</think>The answer.") == 0, "1.2: say output whole: '%s'", c.text);
#endif
    rkllm_destroy(h);
}

static void test_no_eos(void) {
    LLMHandle h = NULL;
    init_handle(&h, model_file("no_eos", "time_scale: 0\nreply_tokens: 10\nfault: no_eos\n"), 4096, 40);
    Collector c;
    run_simple(h, "Hello", 0, &c);
#if RKLLM_ABI_MINOR >= 3
    CHECK(c.n_finish == 1 && c.perf.generate_tokens == 40 && tokens_of(&c) == 40,
          "1.3: no EOS: runs to max_new_tokens: %d", c.perf.generate_tokens);
    CHECK(!contains(&c, "<|im_end|>") && c.bad_state == 0, "skip_special_token: the EOS marker is not in the text");
#else
    CHECK(c.perf.generate_tokens == 10, "1.2: the answer ends: %d", c.perf.generate_tokens);
#endif
    run_simple(h, "[[say:Hi there.]]", 0, &c);
#if RKLLM_ABI_MINOR >= 3
    CHECK(c.perf.generate_tokens == 40 && strncmp(c.text, "Hi there.", 9) == 0 && c.len > 9, "1.3: say runs on too");
    RunOpts o;
    memset(&o, 0, sizeof o);
    o.max_new_tokens = 25;
    run_with(h, "Hello", &o, &c);
    CHECK(c.perf.generate_tokens == 25, "1.3: per-run max_new_tokens ends it: %d", c.perf.generate_tokens);
#else
    CHECK(c.perf.generate_tokens == 3 && c.len == 9, "1.2: say is exact");
#endif
    rkllm_destroy(h);

    /* no limit at all: up to the end of the context; skip_special_token=0 shows the markers */
    init_with(&h, model_file("no_eos_ctx", "time_scale: 0\nreply_tokens: 10\nfault: no_eos\n"), 200, -1, 0);
    run_simple(h, "Hello", 1, &c);
#if RKLLM_ABI_MINOR >= 3
    CHECK(cache_size(h) == 200 && c.n_finish == 1, "1.3: no EOS and no limit: the context fills: %d", cache_size(h));
    CHECK(contains(&c, "<|im_end|>\n"), "skip_special_token=0: the EOS marker shows");
#else
    CHECK(c.perf.generate_tokens == 10, "1.2: the answer ends");
#endif
    rkllm_destroy(h);
}

/* A second model that does not fit the NPU memory budget: -1 on 1.2, a SIGSEGV inside rkllm_init on 1.3. */
static void test_npu_budget(void) {
    const char* big = model_file("budget", "time_scale: 0\nmemory_mb: 2000\nnpu_budget_mb: 3000\n");
#if RKLLM_ABI_MINOR >= 3
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        LLMHandle a = NULL, b = NULL;
        if (init_handle(&a, big, 512, -1) != 0 || !a) _exit(3);
        init_handle(&b, big, 512, -1);
        _exit(4); /* not reached on 1.3 */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "1.3: init beyond the budget dies of SIGSEGV (status %#x)",
          status);
    CHECK(trace_lines_with("\"result\":\"crash\"") == 1, "the crash is traced before it happens");
    /* the budget is per process: this one still loads a model */
    LLMHandle h = NULL;
    CHECK(init_handle(&h, big, 512, -1) == 0 && h, "the parent still loads");
    rkllm_destroy(h);
#else
    LLMHandle a = NULL, b = (LLMHandle)0x1;
    CHECK(init_handle(&a, big, 512, -1) == 0 && a, "first model fits");
    CHECK(init_handle(&b, big, 512, -1) == -1 && b == NULL, "1.2: a second one beyond the budget returns -1");
    rkllm_destroy(a);
    CHECK(init_handle(&b, big, 512, -1) == 0 && b, "fits once the first is destroyed");
    rkllm_destroy(b);
    /* the environment sets a budget for every model of the process */
    setenv("RKLLM_SIM_NPU_BUDGET_MB", "4000", 1);
    const char* plain = model_file("budget_env", "time_scale: 0\n");
    a = NULL;
    b = (LLMHandle)0x1;
    CHECK(init_handle(&a, plain, 512, -1) == 0 && a, "2300 MB of 4000");
    CHECK(init_handle(&b, plain, 512, -1) == -1 && b == NULL, "4600 MB of 4000: refused");
    rkllm_destroy(a);
    unsetenv("RKLLM_SIM_NPU_BUDGET_MB");
    CHECK(trace_lines_with("not enough NPU memory") == 2, "both refusals traced");
#endif
}

static void test_trace(void) {
    char path[600];
    snprintf(path, sizeof path, "%s/trace.jsonl", workdir);
    FILE* f = fopen(path, "r");
    CHECK(f != NULL, "trace written");
    if (!f) return;
    char* line = NULL;
    size_t cap = 0;
    int lines = 0, runs = 0, inits = 0, with_prefilled = 0;
    while (getline(&line, &cap, f) > 0) {
        lines++;
        if (strstr(line, "{\"call\":\"run\"")) runs++;
        if (strstr(line, "{\"call\":\"init\"")) inits++;
        if (strstr(line, "\"prefilled_text\":\"<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n"))
            with_prefilled++;
    }
    free(line);
    fclose(f);
    CHECK(lines > 50 && runs > 20 && inits > 10 && with_prefilled > 3, "trace lines %d runs %d inits %d prefilled %d",
          lines, runs, inits, with_prefilled);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
        return 2;
    }
    workdir = argv[1];
    const char* ts = getenv("RKLLM_SIM_TIME_SCALE");
    zero_time = ts && atof(ts) == 0.0 && ts[0];
    char trace[600];
    snprintf(trace, sizeof trace, "%s/trace.jsonl", workdir);
    unlink(trace);
    setvbuf(stdout, NULL, _IOLBF, 0);

    test_defaults();
    test_init();
    test_kv_cache();
    test_context_limits();
    test_tokens_directive_and_max_new_tokens();
    test_say();
    test_tools();
    test_error_and_pause();
    test_is_running_and_userdata();
    test_abort();
    test_prompt_cache_and_lora();
    test_multimodal();
    test_two_handles();
    test_async();
    test_hidden_layer();
    test_json();
    test_json_client_prompts();
    test_think_finish();
    test_no_eos();
    test_npu_budget();
    test_trace();

    printf("sim_smoke [%s]: %d checks, %d failures\n", ABI, checks, failures);
    return failures ? 1 : 0;
}
