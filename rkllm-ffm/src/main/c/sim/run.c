/* Execution of a run: see run.h and docs/simulated-runtime.md ("KV cache", "Runs"). */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "hidden.h"
#include "json.h"
#include "prompt_cache.h"
#include "schema.h"
#include "strbuf.h"
#include "textgen.h"
#include "tokenizer.h"
#include "trace.h"

#define LOGITS_VOCAB 256

SimRunRequest* sim_run_request_new(const RKLLMInput* input, const RKLLMInferParam* ip, void* userdata) {
    SimRunRequest* r = sim_xcalloc(1, sizeof(SimRunRequest));
    r->role = sim_strdup(input->role ? input->role : "user");
    r->enable_thinking = input->enable_thinking;
    r->input_type = (int)input->input_type;
    switch (input->input_type) {
        case RKLLM_INPUT_PROMPT:
            r->prompt = sim_strdup(input->prompt_input);
            break;
        case RKLLM_INPUT_TOKEN:
            r->input_tokens = (long long)input->token_input.n_tokens;
            break;
        case RKLLM_INPUT_EMBED:
            r->input_tokens = (long long)input->embed_input.n_tokens;
            break;
        case RKLLM_INPUT_MULTIMODAL: /* the images: sim_images_snapshot */
            r->prompt = sim_strdup(input->multimodal_input.prompt);
            break;
        default:
            break;
    }
    if (ip) {
        r->has_infer_param = true;
        r->mode = (int)ip->mode;
        r->keep_history = ip->keep_history;
        if (ip->lora_params) {
            r->has_lora = true;
            r->lora_name = sim_strdup(ip->lora_params->lora_adapter_name);
        }
        if (ip->prompt_cache_params) {
            r->has_prompt_cache = true;
            r->save_prompt_cache = ip->prompt_cache_params->save_prompt_cache;
            r->prompt_cache_path = sim_strdup(ip->prompt_cache_params->prompt_cache_path);
        }
#if RKLLM_ABI_MINOR >= 3
        if (ip->sampling_params) {
            r->has_sampling = true;
            r->sampling = *ip->sampling_params;
        }
        r->max_new_tokens = ip->max_new_tokens;
#endif
    }
    r->userdata = userdata;
    return r;
}

void sim_run_request_free(SimRunRequest* r) {
    if (!r) return;
    free(r->role);
    free(r->prompt);
    free(r->lora_name);
    free(r->prompt_cache_path);
    sim_images_free(&r->images);
    free(r);
}

typedef enum { END_FINISH, END_ABORT, END_ERROR, END_PAUSE } RunEnd;

/* The template ends with an empty, closed think block: the model answers without thinking. */
static bool closes_empty_think(const char* postfix) {
    const char* tail = "</think>";
    const char* at = strstr(postfix, tail);
    if (!at) return false;
    at += strlen(tail);
    while (*at == '\n' || *at == ' ' || *at == '\r' || *at == '\t') at++;
    return *at == '\0';
}

static const char* const END_NAMES[] = {"finish", "abort", "error", "pause"};

typedef struct {
    SimHandle* h;
    const SimRunRequest* req;
    LLMResultCallback cb;
    void* ud;
    RKLLMResult result;
    double t0;
    double t_prefill_end; /* < 0 while prefilling */
    int prefilled;
    int generated;
    StrBuf output;
    RunEnd end;
    const char* finish_reason;
    char error[512];
    int json;             /* the [[json]] outcome produced (SimJsonOutcome), -1 none */
    int vector_rows;      /* GET_LAST_HIDDEN_LAYER / GET_LOGITS: rows delivered */
    bool output_released; /* 1.3: the callback returned 2 for them */
} RunCtx;

/* How the 1.3.0 faults shape one generation (all off in the 1.2 build). */
typedef struct {
    bool stop_at_think_end; /* think_finish: FINISH at </think>, the tag itself not delivered */
    int early_eos_after;    /* think_finish, the run after such a FINISH: FINISH after this many tokens; -1 off */
    bool skip_special;      /* no_eos: the run-on's EOS markers are delivered as empty text (skip_special_token) */
} GenFaults;

static void update_perf(RunCtx* c) {
    double now = sim_now_ms();
    RKLLMPerfStat* p = &c->result.perf;
    p->prefill_time_ms = (float)((c->t_prefill_end >= 0 ? c->t_prefill_end : now) - c->t0);
    p->prefill_tokens = c->prefilled;
    p->generate_time_ms = (float)(c->t_prefill_end >= 0 ? now - c->t_prefill_end : 0.0);
    p->generate_tokens = c->generated;
    p->memory_usage_mb = (float)c->h->cfg.memory_mb;
}

static int call_back(RunCtx* c, LLMCallState state) {
    update_perf(c);
    if (!c->cb) return 0;
    return c->cb(&c->result, c->ud, state);
}

/* Ends with RKLLM_RUN_ERROR: message to stderr, ERROR callback. */
static void run_error(RunCtx* c, const char* stderr_line) {
    if (stderr_line) {
        fprintf(stderr, "%s\n", stderr_line);
        fflush(stderr);
    }
    c->end = END_ERROR;
    c->finish_reason = "error";
    c->result.text = NULL;
    c->result.token_id = -1;
    call_back(c, RKLLM_RUN_ERROR);
}

static void run_finish(RunCtx* c, RunEnd end, const char* reason) {
    c->end = end;
    c->finish_reason = reason;
    c->result.text = NULL;
    c->result.token_id = -1;
    call_back(c, RKLLM_RUN_FINISH);
}

static bool lora_known(SimHandle* h, const char* name) {
    for (int i = 0; i < h->n_loras; i++) {
        if (strcmp(h->lora_names[i], name) == 0) return true;
    }
    return false;
}

static int effective_max_new_tokens(const SimHandle* h, const SimRunRequest* req) {
#if RKLLM_ABI_MINOR >= 3
    if (req->max_new_tokens > 0) return req->max_new_tokens;
#else
    (void)req;
#endif
    return h->param.max_new_tokens > 0 ? h->param.max_new_tokens : 0;
}

/* The "hidden layer" / "logits" modes: one NORMAL callback with the floats and empty text. The hidden layer has
 * a row per prefilled token (hidden.c); logits one row. Returns true when the run goes on (normally to FINISH
 * with generate_tokens 0), false when it ended (hang then abort, error, pause). */
static bool run_vector_mode(RunCtx* c, const SimHiddenStates* hidden, uint64_t seed) {
    const SimFaults* f = &c->h->cfg.fault;
    if (f->hang) {
        sim_handle_wait(c->h, -1, 1);
        run_finish(c, END_ABORT, "abort");
        return false;
    }
    if (f->error_after == 0) {
        snprintf(c->error, sizeof c->error, "simulated run error after 0 generated tokens (fault error_after)");
        char line[600];
        snprintf(line, sizeof line, "E rkllm: %s", c->error);
        run_error(c, line);
        return false;
    }
    float* logits = NULL;
    char empty[1] = "";
    c->result.text = empty;
    c->result.token_id = -1;
    if (c->req->mode == RKLLM_INFER_GET_LAST_HIDDEN_LAYER) {
        c->result.last_hidden_layer.hidden_states = hidden->rows;
        c->result.last_hidden_layer.embd_size = hidden->embd_size;
        c->result.last_hidden_layer.num_tokens = hidden->num_tokens;
        c->vector_rows = hidden->num_tokens;
    } else {
        logits = sim_xcalloc(LOGITS_VOCAB, sizeof(float));
        for (int i = 0; i < LOGITS_VOCAB; i++) logits[i] = (float)((double)((seed >> (i % 48)) & 0xFFFF) / 65535.0 - 0.5);
        c->result.logits.logits = logits;
        c->result.logits.vocab_size = LOGITS_VOCAB;
        c->result.logits.num_tokens = 1;
        c->vector_rows = 1;
    }
    int r = call_back(c, RKLLM_RUN_NORMAL);
    memset(&c->result.last_hidden_layer, 0, sizeof c->result.last_hidden_layer);
    memset(&c->result.logits, 0, sizeof c->result.logits);
    free(logits);
#if RKLLM_ABI_MINOR >= 3
    c->output_released = r == 2; /* "release the current output buffer": it is gone either way here */
#endif
    if (r == 1) {
        c->end = END_PAUSE;
        c->finish_reason = "pause";
        return false;
    }
    return true;
}

/* Token generation after the prefill. */
static void run_generate(RunCtx* c, const SimGenRequest* g, const GenFaults* gf, int cache_before) {
    SimHandle* h = c->h;
    const SimFaults* f = &h->cfg.fault;
    if (f->hang) {
        sim_handle_wait(h, -1, 1);
        run_finish(c, END_ABORT, "abort");
        return;
    }
    SimOutput out;
    sim_generate(g, &out);
    size_t max_chunk = 0;
    for (int i = 0; i < out.n_chunks; i++) {
        size_t n = out.bounds[i + 1] - out.bounds[i];
        if (n > max_chunk) max_chunk = n;
    }
    char* buf = sim_xmalloc(max_chunk + 1);
    const char* text = sb_cstr(&out.text);
    /* where the runtime ends the answer by itself, and why (the trace's finish_reason) */
    size_t deliver_end = out.text.len;
    const char* natural_end = "eos";
    const char* think_end = gf->stop_at_think_end ? strstr(text, "</think>") : NULL;
    if (think_end) {
        deliver_end = (size_t)(think_end - text);
        natural_end = "think_end";
    }
    int limit = effective_max_new_tokens(h, c->req);
    int max_ctx = h->param.max_context_len;
    double decode_ms = sim_scaled_ms(h, 1000.0 / h->cfg.decode_tps);
    const char* reason = natural_end;
    RunEnd end = END_FINISH;
    for (int i = 0; i < out.n_chunks; i++) {
        size_t s = out.bounds[i], e = out.bounds[i + 1];
        if (s >= deliver_end) {
            break;
        }
        if (gf->early_eos_after >= 0 && c->generated >= gf->early_eos_after) {
            reason = "early_eos";
            break;
        }
        if (sim_handle_abort_requested(h)) {
            end = END_ABORT;
            reason = "abort";
            break;
        }
        if (limit > 0 && c->generated >= limit) {
            reason = "max_new_tokens";
            break;
        }
        if (cache_before + c->prefilled + c->generated + 1 > max_ctx) {
            reason = "max_context";
            break;
        }
        if (f->error_after >= 0 && c->generated == f->error_after) {
            end = END_ERROR;
            break;
        }
        if (sim_handle_wait(h, decode_ms, 1)) {
            end = END_ABORT;
            reason = "abort";
            break;
        }
        if (e > deliver_end) e = deliver_end;
        bool skipped = gf->skip_special && s >= out.answer_len && e - s == strlen(SIM_EOS_MARKER) &&
                       memcmp(text + s, SIM_EOS_MARKER, e - s) == 0;
        size_t n = skipped ? 0 : e - s;
        memcpy(buf, text + s, n);
        buf[n] = '\0';
        sb_append_n(&c->output, text + s, n);
        c->generated++;
        c->result.text = buf;
        c->result.token_id = sim_token_id(text + s, e - s);
        LLMCallState st = sim_utf8_is_boundary(text, out.text.len, e) ? RKLLM_RUN_NORMAL : RKLLM_RUN_WAITING;
        if (call_back(c, st) == 1) {
            end = END_PAUSE;
            reason = "pause";
            break;
        }
    }
    if (end == END_ERROR) {
        char line[600];
        snprintf(c->error, sizeof c->error, "simulated run error after %d generated tokens (fault error_after)",
                 c->generated);
        snprintf(line, sizeof line, "E rkllm: %s", c->error);
        run_error(c, line);
    } else if (end == END_PAUSE) {
        c->end = END_PAUSE;
        c->finish_reason = reason;
    } else {
        run_finish(c, end, reason);
    }
    free(buf);
    sim_output_free(&out);
}

/* Which outcome of a [[json]] list this run produces (-1: no structured output); h->lock held. A directive
 * takes the next outcome of its list when it is the list last seen and not used up, else the first. A run
 * without a directive that continues the cache of a [[json]] run (the client's retry as a new turn) takes the
 * next one while the list lasts. */
/* The prompt asks for JSON the way structured-output servers and client libraries do: a schema it carries and the
 * words "JSON schema" in any case (a server's guidance, LangChain's format instructions: "JSON Schema" in
 * JavaScript, "JSON schema" in Python), or "single JSON object" (a server's json_object guidance). */
static bool asks_for_json(const char* prompt) {
    if (!prompt) return false;
    if (strstr(prompt, "single JSON object")) return true;
    bool words = false;
    for (const char* p = prompt; *p && !words; p++) words = strncasecmp(p, "JSON schema", 11) == 0;
    JsonValue* root = NULL;
    bool schema = words && sim_schema_find(prompt, &root) != NULL;
    json_free(root);
    return schema;
}

static int json_outcome_for_run(SimHandle* h, const char* prompt, int cache_before, unsigned epoch,
                                char** context) {
    *context = NULL;
    char* outcomes = sim_directive_json(prompt);
    bool continues = h->json_end_cache >= 0 && h->json_end_cache == cache_before && h->json_end_epoch == epoch;
    h->json_end_cache = -1;
    int attempt;
    if (outcomes) {
        bool same = h->json_outcomes && strcmp(h->json_outcomes, outcomes) == 0;
        attempt = same && h->json_used < sim_json_outcome_count(outcomes) ? h->json_used : 0;
        free(h->json_outcomes);
        h->json_outcomes = outcomes;
        free(h->json_prompt);
        h->json_prompt = sim_strdup(prompt);
    } else if (continues && h->json_outcomes && h->json_used < sim_json_outcome_count(h->json_outcomes)) {
        attempt = h->json_used;
    } else if (asks_for_json(prompt)) {
        /* an instruction-following model asked for JSON the way a structured-output pipeline asks answers it */
        *context = sim_strdup(prompt);
        return SIM_JSON_VALID;
    } else {
        return -1;
    }
    h->json_used = attempt + 1;
    *context = sim_strdup(h->json_prompt);
    return (int)sim_json_outcome(h->json_outcomes, attempt);
}

/* What run_answer needs of the run's snapshot. */
typedef struct {
    const SimToolList* tools;
    const char* system;
    int json;
    const char* json_context;
    const char* postfix;
    bool custom_template;
    bool after_think_end; /* fault think_finish: the run right after one that ended at </think> */
    uint64_t seed;
    int cache_before;
} AnswerSetup;

/* Generation mode after the prefill: what the model answers (textgen.c), shaped by the 1.3.0 faults. */
static void run_answer(RunCtx* c, const AnswerSetup* a) {
    SimHandle* h = c->h;
    const SimRunRequest* req = c->req;
    SimGenRequest g;
    memset(&g, 0, sizeof g);
    g.prompt = req->prompt;
    g.role_is_user = strcmp(req->role, "user") == 0;
    g.role_is_tool = strcmp(req->role, "tool") == 0;
    /* After rkllm_set_chat_template the flag has no effect; a thinking model then thinks unless the
     * template itself closes an empty think block (as Qwen3's does for enable_thinking=false). */
    g.think = h->cfg.thinking && (a->custom_template ? !closes_empty_think(a->postfix) : req->enable_thinking);
    /* gpt-oss reasons before every answer, whatever the template or the flag say (only its effort changes) */
    if (h->cfg.thinking && h->cfg.dialect == SIM_DIALECT_GPT_OSS) g.think = 1;
    g.reply_tokens = h->cfg.reply_tokens;
    g.seed = a->seed;
    g.tools = a->tools;
    g.json = a->json;
    g.json_context = a->json_context;
    c->json = a->json;
    g.system = a->system;
    g.dialect = h->cfg.dialect;
    GenFaults gf = {false, -1, false};
#if RKLLM_ABI_MINOR >= 3
    const SimFaults* f = &h->cfg.fault;
    /* 1.3.0 acts on enable_thinking by ending the run at </think>; whether it still does after
     * rkllm_set_chat_template is unknown, hence the two variants of the fault. */
    gf.stop_at_think_end = f->think_finish && req->enable_thinking && (!a->custom_template || f->think_finish == 2);
    if (f->think_finish && a->after_think_end) {
        /* the follow-up run that should give the answer: no second thinking, and an EOS after 13-27
         * tokens (13 when run as the assistant's own turn), as reported */
        g.think = 0;
        gf.early_eos_after = strcmp(req->role, "assistant") == 0 ? 13 : 13 + (int)(a->seed % 15);
    }
    if (f->no_eos) {
        int room = h->param.max_context_len - a->cache_before - c->prefilled;
        int limit = effective_max_new_tokens(h, req);
        g.min_tokens = (limit > 0 && limit < room ? limit : room) + 1;
        gf.skip_special = h->param.skip_special_token;
    }
#endif
    run_generate(c, &g, &gf, a->cache_before);
}

static void trace_run(RunCtx* c, const char* prefilled_text, int prefill_tokens, int cache_before, int cache_after) {
    SimHandle* h = c->h;
    const SimRunRequest* r = c->req;
    SimTraceLine line;
    if (!sim_trace_line_start(&line, &h->trace, "run")) return;
    JsonWriter* w = &line.w;
    JsonWriter o;
    jw_str(w, "role", r->role);
    jw_bool(w, "enable_thinking", r->enable_thinking);
    jw_int(w, "input_type", r->input_type);
    jw_str(w, "prompt", r->prompt);
    if (r->input_type != RKLLM_INPUT_PROMPT) jw_int(w, "input_tokens", r->input_tokens);
    sim_images_trace(&r->images, w);
    jw_int(w, "keep_history", r->keep_history);
    jw_int(w, "mode", r->mode);
#if RKLLM_ABI_MINOR >= 3
    if (r->has_sampling) {
        jw_key(w, "sampling");
        jw_begin(&o, &line.sb);
        jw_int(&o, "top_k", r->sampling.top_k);
        jw_num(&o, "top_p", r->sampling.top_p);
        jw_num(&o, "temperature", r->sampling.temperature);
        jw_num(&o, "repeat_penalty", r->sampling.repeat_penalty);
        jw_num(&o, "frequency_penalty", r->sampling.frequency_penalty);
        jw_num(&o, "presence_penalty", r->sampling.presence_penalty);
        jw_int(&o, "mirostat", r->sampling.mirostat);
        jw_num(&o, "mirostat_tau", r->sampling.mirostat_tau);
        jw_num(&o, "mirostat_eta", r->sampling.mirostat_eta);
        jw_end(&o);
    } else {
        jw_null(w, "sampling");
    }
    jw_int(w, "max_new_tokens", r->max_new_tokens);
#else
    jw_null(w, "sampling");
    jw_null(w, "max_new_tokens");
#endif
    if (r->has_lora) jw_str(w, "lora", r->lora_name ? r->lora_name : "");
    else jw_null(w, "lora");
    if (r->has_prompt_cache) {
        jw_key(w, "prompt_cache");
        jw_begin(&o, &line.sb);
        jw_int(&o, "save", r->save_prompt_cache);
        jw_str(&o, "path", r->prompt_cache_path);
        jw_end(&o);
    } else {
        jw_null(w, "prompt_cache");
    }
    jw_bool(w, "async", r->is_async);
    jw_int(w, "cache_before", cache_before);
    jw_int(w, "prefill_tokens", prefill_tokens);
    jw_str(w, "prefilled_text", prefilled_text);
    jw_int(w, "generate_tokens", c->generated);
    if (c->json >= 0) jw_str(w, "json", sim_json_outcome_name((SimJsonOutcome)c->json));
    else jw_null(w, "json");
    if (r->mode != RKLLM_INFER_GENERATE) {
        jw_int(w, "vector_rows", c->vector_rows);
        jw_bool(w, "output_released", c->output_released);
    }
    jw_int(w, "cache_after", cache_after);
    jw_str(w, "result", END_NAMES[c->end]);
    jw_str(w, "finish_reason", c->finish_reason);
    jw_strn(w, "output", sb_cstr(&c->output), c->output.len);
    jw_num(w, "prefill_time_ms", c->result.perf.prefill_time_ms);
    jw_num(w, "generate_time_ms", c->result.perf.generate_time_ms);
    if (c->error[0]) jw_str(w, "error", c->error);
    sim_trace_line_end(&line);
}

int sim_run(SimHandle* h, const SimRunRequest* req) {
    pthread_mutex_lock(&h->lock);
    bool reentrant = h->running && pthread_equal(h->runner, pthread_self());
    pthread_mutex_unlock(&h->lock);
    if (reentrant) {
        fprintf(stderr, "E rkllm: rkllm_run called from inside its own callback\n");
        return -1;
    }
    pthread_mutex_lock(&h->run_lock);

    RunCtx c;
    memset(&c, 0, sizeof c);
    c.h = h;
    c.req = req;
    c.cb = h->callback;
#if RKLLM_ABI_MINOR >= 3
    c.ud = req->userdata ? req->userdata : h->callback_userdata;
#else
    c.ud = req->userdata;
#endif
    c.t0 = sim_now_ms();
    c.t_prefill_end = -1;
    c.result.token_id = -1;
    c.end = END_FINISH;
    c.json = -1;
    sb_init(&c.output);

    /* snapshot of the handle state */
    pthread_mutex_lock(&h->lock);
    h->running = true;
    h->abort_requested = h->destroying;
    h->runner = pthread_self();
    int cache_before = h->cache_tokens;
    int system_before = h->system_tokens;
    unsigned epoch = h->cache_epoch;
    char* system = sim_strdup(h->system_text);
    char* prefix = sim_strdup(h->prefix_text);
    char* postfix = sim_strdup(h->postfix_text);
    char* tag = sim_strdup(h->tool_response_tag);
    bool custom_template = h->custom_template;
    /* fault think_finish: this run continues right after a run that ended at </think> */
    bool after_think_end = h->think_end_cache >= 0 && h->think_end_cache == cache_before && h->think_end_epoch == epoch;
    h->think_end_cache = -1;
    char* json_context = NULL;
    int json = req->mode == RKLLM_INFER_GENERATE
                   ? json_outcome_for_run(h, req->prompt, cache_before, epoch, &json_context)
                   : -1;
    SimToolList tools;
    sim_tools_copy(&h->tools, &tools);
    bool lora_ok = !req->has_lora || !req->lora_name || lora_known(h, req->lora_name);
    pthread_mutex_unlock(&h->lock);
    if (h->cfg.trace_run_start) {
        /* the moment a run has begun, before its prefill: what a test waits for to act during the prefill */
        SimTraceLine line;
        if (sim_trace_line_start(&line, &h->trace, "run_start")) {
            jw_int(&line.w, "cache_before", cache_before);
            sim_trace_line_end(&line);
        }
    }

    /* what gets prefilled */
    bool text_input = req->input_type == RKLLM_INPUT_PROMPT || req->input_type == RKLLM_INPUT_MULTIMODAL;
    bool role_tool = strcmp(req->role, "tool") == 0;
    bool include_system = text_input && cache_before == 0;
    int system_count = include_system ? sim_count_tokens(system) : 0;
    StrBuf pre;
    sb_init(&pre);
    sb_append(&pre, "");
    long long prefill = 0;
    StrBuf body;
    sb_init(&body);
    sb_append(&body, "");
    if (text_input) {
        if (role_tool) {
            sb_printf(&body, "<%s>\n%s\n</%s>", tag, req->prompt ? req->prompt : "", tag);
        } else {
            sb_append(&body, req->prompt);
        }
        StrBuf shown; /* the body as prefilled: each <image> expanded to its tags */
        sb_init(&shown);
        sim_images_expand(&req->images, &body, &shown);
        if (include_system) sb_append(&pre, system);
        sb_append(&pre, prefix);
        sb_append(&pre, sb_cstr(&shown));
        sb_append(&pre, postfix);
        prefill = system_count + sim_count_tokens(prefix) + sim_count_tokens(sb_cstr(&body)) +
                  sim_count_tokens(postfix) + req->input_tokens;
        sb_free(&shown);
    } else {
        prefill = req->input_tokens;
    }
    int max_ctx = h->param.max_context_len;
    char line[600];
    const char* line_prefix = "E rkllm: ";
    bool failed = true;
    bool prefill_done = false;
    if (!lora_ok) {
        snprintf(c.error, sizeof c.error, "lora adapter '%s' is not loaded", req->lora_name);
    } else if (req->input_type < RKLLM_INPUT_PROMPT || req->input_type > RKLLM_INPUT_MULTIMODAL) {
        snprintf(c.error, sizeof c.error, "unsupported input_type %d", req->input_type);
    } else if (req->input_type == RKLLM_INPUT_PROMPT && !req->prompt) {
        snprintf(c.error, sizeof c.error, "prompt_input is NULL");
    } else if (req->images.error[0]) {
        snprintf(c.error, sizeof c.error, "%s", req->images.error);
    } else if (req->mode < RKLLM_INFER_GENERATE || req->mode > RKLLM_INFER_GET_LOGITS) {
        snprintf(c.error, sizeof c.error, "unsupported infer mode %d", req->mode);
    } else if (cache_before + prefill > max_ctx) {
        line_prefix = "error: ";
        snprintf(c.error, sizeof c.error, "prompt gather than max context (prompt: %lld tokens, max context: %d)",
                 cache_before + prefill, max_ctx);
    } else {
        failed = false;
    }

    if (failed) {
        snprintf(line, sizeof line, "%s%s", line_prefix, c.error);
        run_error(&c, line);
    } else {
        /* prefill */
        const SimFaults* f = &h->cfg.fault;
        double prefill_ms =
            sim_scaled_ms(h, h->cfg.run_overhead_ms + (double)prefill * 1000.0 / h->cfg.prefill_tps) * f->slow_prefill;
        int aborted = sim_handle_wait(h, prefill_ms, !f->abort_ignores_prefill);
        c.t_prefill_end = sim_now_ms();
        if (aborted) {
            run_finish(&c, END_ABORT, "abort");
        } else {
            c.prefilled = (int)prefill;
            prefill_done = true;
            if (req->has_prompt_cache && req->save_prompt_cache && req->prompt_cache_path) {
                char err[512];
                int sys_tokens = include_system ? system_count : system_before;
                if (sim_prompt_cache_save(req->prompt_cache_path, cache_before + c.prefilled, sys_tokens,
                                          sb_cstr(&pre), err, sizeof err)) {
                    fprintf(stderr, "W rkllm: %s\n", err);
                }
            }
            uint64_t seed = sim_fnv1a(SIM_FNV_SEED, req->prompt ? req->prompt : "", req->prompt ? strlen(req->prompt) : 0);
            seed = sim_fnv1a(seed, &cache_before, sizeof cache_before);
            seed = sim_images_seed(&req->images, seed);
            if (sim_directive_error(req->prompt)) {
                snprintf(c.error, sizeof c.error, "simulated run error (directive [[error]])");
                snprintf(line, sizeof line, "E rkllm: %s", c.error);
                run_error(&c, line);
            } else if (req->mode != RKLLM_INFER_GENERATE) {
                SimHiddenStates hidden = {NULL, 0, 0};
                if (req->mode == RKLLM_INFER_GET_LAST_HIDDEN_LAYER) {
                    const char* texts[4] = {include_system ? system : NULL, prefix, sb_cstr(&body), postfix};
                    sim_hidden_states(texts, text_input ? 4 : 0, req->input_tokens, (uint64_t)cache_before,
                                      h->cfg.embd_size, &hidden);
                }
                bool delivered = run_vector_mode(&c, &hidden, seed);
                sim_hidden_states_free(&hidden);
                if (delivered && h->cfg.fault.hidden_then_generate && req->mode == RKLLM_INFER_GET_LAST_HIDDEN_LAYER) {
                    AnswerSetup a = {&tools, system, -1, NULL, postfix, custom_template, false, seed, cache_before};
                    run_answer(&c, &a);
                } else if (delivered) {
                    run_finish(&c, END_FINISH, "eos");
                }
            } else if (h->cfg.kind == SIM_KIND_EMBEDDING) {
                /* an embedding model has no trained answer: it ends at once */
                run_finish(&c, END_FINISH, "eos");
            } else {
                AnswerSetup a = {&tools, system, json, json_context, postfix, custom_template, after_think_end, seed, cache_before};
                run_answer(&c, &a);
            }
        }
    }

    /* KV cache afterwards */
    int cache_after = cache_before;
    int system_after = system_before;
    if (c.end != END_ERROR && (req->keep_history || c.end == END_PAUSE)) {
        cache_after = cache_before + c.prefilled + c.generated;
        if (include_system && prefill_done) system_after = system_count;
    }
    bool ended_at_think = c.end == END_FINISH && c.finish_reason && strcmp(c.finish_reason, "think_end") == 0;
    pthread_mutex_lock(&h->lock);
    if (h->cache_epoch == epoch) {
        h->cache_tokens = cache_after;
        h->system_tokens = system_after;
        if (ended_at_think && cache_after > cache_before) {
            h->think_end_cache = cache_after;
            h->think_end_epoch = epoch;
        }
        if (json >= 0 && c.end == END_FINISH && cache_after > cache_before) {
            h->json_end_cache = cache_after;
            h->json_end_epoch = epoch;
        }
    } else {
        cache_after = h->cache_tokens; /* changed by another call during the run: leave it */
    }
    pthread_mutex_unlock(&h->lock);

    trace_run(&c, text_input ? (prefill_done ? sb_cstr(&pre) : "") : NULL, c.prefilled, cache_before, cache_after);

    sb_free(&pre);
    sb_free(&body);
    sb_free(&c.output);
    free(json_context);
    free(system);
    free(prefix);
    free(postfix);
    free(tag);
    sim_tools_free(&tools);

    pthread_mutex_lock(&h->lock);
    h->running = false;
    h->abort_requested = false;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    pthread_mutex_unlock(&h->run_lock);
    return c.end == END_ERROR ? -1 : 0;
}

typedef struct {
    SimHandle* h;
    SimRunRequest* req;
    SimAsyncThread* node;
} AsyncJob;

static void* async_main(void* arg) {
    AsyncJob* job = arg;
    SimHandle* h = job->h;
    SimAsyncThread* node = job->node;
    sim_run(h, job->req);
    sim_run_request_free(job->req);
    free(job);
    pthread_mutex_lock(&h->lock);
    node->done = true;
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

void sim_join_async_threads(SimHandle* h, bool all) {
    SimAsyncThread* joinable = NULL;
    pthread_mutex_lock(&h->lock);
    for (SimAsyncThread** p = &h->async_threads; *p;) {
        SimAsyncThread* t = *p;
        if (all || t->done) {
            *p = t->next;
            t->next = joinable;
            joinable = t;
        } else {
            p = &t->next;
        }
    }
    pthread_mutex_unlock(&h->lock);
    while (joinable) {
        SimAsyncThread* t = joinable;
        joinable = t->next;
        pthread_join(t->thread, NULL);
        free(t);
    }
}

int sim_run_async(SimHandle* h, SimRunRequest* req) {
    sim_join_async_threads(h, false);
    AsyncJob* job = sim_xmalloc(sizeof(AsyncJob));
    SimAsyncThread* node = sim_xcalloc(1, sizeof(SimAsyncThread));
    job->h = h;
    job->req = req;
    job->node = node;
    req->is_async = true;
    pthread_mutex_lock(&h->lock);
    int rc = pthread_create(&node->thread, NULL, async_main, job);
    if (rc == 0) {
        node->next = h->async_threads;
        h->async_threads = node;
    }
    pthread_mutex_unlock(&h->lock);
    if (rc != 0) {
        sim_run_request_free(req);
        free(job);
        free(node);
        return -1;
    }
    return 0;
}
