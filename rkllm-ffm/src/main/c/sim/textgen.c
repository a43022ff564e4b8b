/* Deterministic answers of the simulated model, and their split into tokens/callbacks. */
#include "textgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "model_file.h"
#include "schema.h"
#include "tokenizer.h"
#include "turns.h"

#define SAY_CHUNK_BYTES 3
#define TOOL_QUOTE_BYTES 60
#define MAX_DIRECTIVE_TOKENS 1000000

/* Mixes ASCII, accented Latin (2-byte UTF-8), CJK (3-byte) and emoji (4-byte). */
static const char* const WORDS[] = {
    "the",    "model",  "runs",    "on",      "a",      "small",  "board",   "with",  "an",     "NPU",
    "and",    "it",     "answers", "quickly", "every",  "token",  "is",      "counted", "cache", "keeps",
    "context", "for",   "later",   "turns",   "simple", "reply",  "data",    "kernel", "driver", "memory",
    "prompt", "fast",   "clear",   "result",  "café",   "naïve",  "über",    "déjà",   "vu",     "résumé",
    "日本語", "模型",   "推理",    "缓存",    "🚀",     "😀",     "of",      "to",     "in",     "this",
};

static const char* const THINK_WORDS[] = {
    "let", "me", "think", "about", "the", "question", "first", "then", "answer", "briefly",
    "check", "context", "carefully", "user", "wants", "a", "clear", "reply",
};

#define NWORDS (sizeof WORDS / sizeof WORDS[0])
#define NTHINK (sizeof THINK_WORDS / sizeof THINK_WORDS[0])

typedef struct {
    uint64_t s;
} Rng;

static uint64_t rng_next(Rng* r) {
    /* splitmix64: good enough and fully deterministic */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static unsigned rng_below(Rng* r, unsigned n) {
    return (unsigned)(rng_next(r) % n);
}

static void append_word(StrBuf* sb, const char* w, int capitalize) {
    if (capitalize && w[0] >= 'a' && w[0] <= 'z') {
        sb_append_char(sb, (char)(w[0] - 'a' + 'A'));
        sb_append(sb, w + 1);
    } else {
        sb_append(sb, w);
    }
}

/* One-token words (with their leading space) used to land exactly on the requested count. */
static const char* const FILLERS[] = {"a", "on", "it", "to", "of", "in", "is", "and"};
#define NFILLERS (sizeof FILLERS / sizeof FILLERS[0])

static char sentence_end(Rng* r) {
    unsigned e = rng_below(r, 10);
    return e < 8 ? '.' : e == 8 ? '!' : '?';
}

/* Exactly n tokens (by the tokenizer rule) of pseudo-text: sentences of 4-10 words, ending with a
 * period. Built word by word: a piece " word" always starts a new token after a word or a
 * punctuation mark, so the counts of the pieces add up. */
static void pseudo_text(Rng* r, int n, StrBuf* out) {
    if (n <= 0) return;
    int remaining = n - 1; /* the final period is the last token */
    unsigned in_sentence = 0, sentence_len = 4 + rng_below(r, 7);
    int first = 1;
    StrBuf piece;
    sb_init(&piece);
    while (remaining > 0) {
        sb_clear(&piece);
        if (!first) sb_append_char(&piece, ' ');
        append_word(&piece, WORDS[rng_below(r, NWORDS)], in_sentence == 0);
        int t = sim_count_tokens(sb_cstr(&piece));
        if (t > remaining) {
            sb_clear(&piece);
            if (!first) sb_append_char(&piece, ' ');
            append_word(&piece, FILLERS[rng_below(r, NFILLERS)], in_sentence == 0);
            t = 1;
        }
        sb_append_n(out, piece.data, piece.len);
        remaining -= t;
        first = 0;
        in_sentence++;
        if (remaining >= 2 && in_sentence >= sentence_len) {
            sb_append_char(out, sentence_end(r));
            remaining--;
            in_sentence = 0;
            sentence_len = 4 + rng_below(r, 7);
        } else if (remaining >= 2 && in_sentence > 1 && rng_below(r, 12) == 0) {
            sb_append_char(out, ',');
            remaining--;
        }
    }
    sb_free(&piece);
    sb_append_char(out, '.');
}

/* gpt-oss opens its answer's message after its analysis (the prompt opened the first message's header). */
#define GPT_OSS_FINAL "<|channel|>final<|message|>"

static void think_block(Rng* r, int dialect, StrBuf* out) {
    unsigned words = 6 + rng_below(r, 5);
    sb_append(out, dialect == SIM_DIALECT_GPT_OSS ? "<|channel|>analysis<|message|>" : "<think>\n");
    for (unsigned i = 0; i < words; i++) {
        if (i) sb_append_char(out, ' ');
        append_word(out, THINK_WORDS[rng_below(r, NTHINK)], i == 0);
    }
    sb_append(out, dialect == SIM_DIALECT_GPT_OSS ? ".<|end|><|start|>assistant" : ".\n</think>\n\n");
}

/* The call's arguments as the dialect writes them: JSON, or (Qwen3-Coder) one XML parameter per property, a
 * string as it is and any other value as JSON, each on lines of its own. */
static void call_text(int dialect, const char* name, const char* args_json, size_t args_len, StrBuf* out) {
    if (dialect == SIM_DIALECT_GPT_OSS) {
        sb_printf(out, "<|channel|>commentary to=functions.%s <|constrain|>json<|message|>", name);
        sb_append_n(out, args_json, args_len);
        return;
    }
    if (dialect == SIM_DIALECT_QWEN3_CODER) {
        char* copy = sim_strndup(args_json, args_len);
        JsonValue* args = json_parse(copy, NULL, 0);
        free(copy);
        sb_printf(out, "<tool_call>\n<function=%s>\n", name);
        for (size_t i = 0; args && args->type == JV_OBJECT && i < args->n; i++) {
            sb_printf(out, "<parameter=%s>\n", args->keys[i]);
            if (args->items[i]->type == JV_STRING) sb_append(out, args->items[i]->str);
            else json_append_value(out, args->items[i]);
            sb_append(out, "\n</parameter>\n");
        }
        json_free(args);
        sb_append(out, "</function>\n</tool_call>");
        return;
    }
    sb_append(out, "<tool_call>\n{\"name\": ");
    json_append_string(out, name, strlen(name));
    sb_append(out, ", \"arguments\": ");
    sb_append_n(out, args_json, args_len);
    sb_append(out, "}\n</tool_call>");
}

/* A call of the tool with arguments that fill its parameters schema, as a model trained for function calling
 * writes them (every property and every required one); without a schema, its first property or nothing. */
static void tool_call(const SimTool* t, int dialect, StrBuf* out) {
    StrBuf args;
    sb_init(&args);
    JsonValue* schema = t->parameters ? json_parse(t->parameters, NULL, 0) : NULL;
    if (schema) {
        sim_schema_instance(schema, 0, &args);
        json_free(schema);
    } else if (t->first_property) {
        sb_append_char(&args, '{');
        json_append_string(&args, t->first_property, strlen(t->first_property));
        sb_append(&args, ": \"sim\"}");
    } else {
        sb_append(&args, "{}");
    }
    call_text(dialect, t->name, args.data, args.len, out);
    sb_free(&args);
}

static void tool_answer(const char* result, StrBuf* out) {
    StrBuf q;
    sb_init(&q);
    int space = 0;
    for (const char* p = result ? result : ""; *p; p++) {
        if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
            space = q.len > 0;
            continue;
        }
        if (space) sb_append_char(&q, ' ');
        space = 0;
        sb_append_char(&q, *p);
    }
    size_t cut = sim_utf8_clip(sb_cstr(&q), q.len, TOOL_QUOTE_BYTES);
    sb_append(out, "The tool returned: \"");
    sb_append_n(out, sb_cstr(&q), cut);
    if (cut < q.len) sb_append(out, "...");
    sb_append(out, "\".");
    sb_free(&q);
}

/* A trailing comma: before the closing brace or bracket of a non-empty container, else after the value. */
static void add_trailing_comma(StrBuf* json) {
    size_t n = json->len;
    char last = n ? json->data[n - 1] : 0;
    char before = n > 1 ? json->data[n - 2] : 0;
    if ((last == '}' || last == ']') && before != '{' && before != '[') {
        json->data[n - 1] = ',';
        sb_append_char(json, last);
    } else {
        sb_append_char(json, ',');
    }
}

/* Structured output ([[json]]): an instance of the schema the prompt carries (else the prompt of the directive
 * this run continues, else the system part), or, with tools
 * set, a call of the tool (the one the prompt names, else the first) whose arguments are an instance of its
 * parameters; then shaped as the outcome says. */
static void json_answer(const SimGenRequest* req, Rng* rng, StrBuf* out) {
    SimJsonOutcome outcome = (SimJsonOutcome)req->json;
    if (outcome == SIM_JSON_PROSE) {
        pseudo_text(rng, req->reply_tokens > 0 ? req->reply_tokens : 24, out);
        return;
    }
    const SimTool* tool = NULL;
    if (req->tools && req->tools->n) {
        tool = sim_tools_find_mentioned(req->tools, req->prompt);
        if (!tool) tool = &req->tools->items[0];
    }
    JsonValue* root = NULL;
    const JsonValue* schema = NULL;
    if (tool) {
        root = tool->parameters ? json_parse(tool->parameters, NULL, 0) : NULL;
        schema = root;
    } else {
        schema = sim_schema_find(req->prompt, &root);
        if (!schema) schema = sim_schema_find(req->json_context, &root);
        if (!schema) schema = sim_schema_find(req->system, &root);
    }
    StrBuf json;
    sb_init(&json);
    if (tool && !schema) sb_append(&json, outcome == SIM_JSON_INVALID ? "[]" : "{}");
    else sim_schema_instance(schema, outcome == SIM_JSON_INVALID, &json);
    json_free(root);
    if (outcome == SIM_JSON_TRAILING_COMMA) add_trailing_comma(&json);
    StrBuf body;
    sb_init(&body);
    if (tool && req->dialect != SIM_DIALECT_HERMES) {
        /* another family's call: its own markers around the arguments, whatever the outcome did to them */
        if (outcome == SIM_JSON_WRAPPED) sb_append(out, "Sure, here it is:\n\n");
        call_text(req->dialect, tool->name, json.data, json.len, out);
        sb_free(&json);
        sb_free(&body);
        return;
    }
    if (tool) {
        sb_append(&body, "{\"name\": ");
        json_append_string(&body, tool->name, strlen(tool->name));
        sb_append(&body, ", \"arguments\": ");
        sb_append_n(&body, json.data, json.len);
        sb_append_char(&body, '}');
    } else {
        sb_append_n(&body, json.data, json.len);
    }
    if (outcome == SIM_JSON_UNCLOSED && body.len) body.len--, body.data[body.len] = '\0';
    if (outcome == SIM_JSON_FENCED) {
        sb_printf(out, "```json\n%s\n```", sb_cstr(&body));
    } else {
        if (outcome == SIM_JSON_WRAPPED) sb_append(out, "Sure, here it is:\n\n");
        if (tool) sb_append(out, "<tool_call>\n");
        sb_append_n(out, body.data, body.len);
        if (tool) sb_append(out, "\n</tool_call>");
        if (outcome == SIM_JSON_WRAPPED) sb_append(out, "\n\nI hope this helps.");
    }
    sb_free(&json);
    sb_free(&body);
}

static const char* find_last(const char* hay, const char* needle) {
    const char* last = NULL;
    for (const char* p = hay ? strstr(hay, needle) : NULL; p; p = strstr(p + 1, needle)) last = p;
    return last;
}

char* sim_directive_say(const char* prompt) {
    const char* start = find_last(prompt, "[[say:");
    if (!start) return NULL;
    start += 6;
    const char* end = strstr(start, "]]");
    if (!end) end = start + strlen(start);
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "");
    for (const char* p = start; p < end; p++) {
        if (*p == '\\' && p + 1 < end && (p[1] == 'n' || p[1] == 't' || p[1] == '\\')) {
            sb_append_char(&sb, p[1] == 'n' ? '\n' : p[1] == 't' ? '\t' : '\\');
            p++;
        } else {
            sb_append_char(&sb, *p);
        }
    }
    return sb_steal(&sb);
}

char* sim_directive_json(const char* prompt) {
    char* found = NULL;
    for (const char* p = prompt ? strstr(prompt, "[[json") : NULL; p; p = strstr(p + 1, "[[json")) {
        const char* q = p + 6;
        if (q[0] == ']' && q[1] == ']') {
            free(found);
            found = sim_strdup("");
        } else if (q[0] == ':') {
            const char* end = strstr(q, "]]");
            if (!end) break;
            free(found);
            found = sim_strndup(q + 1, (size_t)(end - q - 1));
        }
    }
    return found;
}

static const char* const JSON_OUTCOMES[] = {"valid", "invalid", "trailing_comma", "unclosed", "fenced", "wrapped",
                                            "prose"};

const char* sim_json_outcome_name(SimJsonOutcome outcome) {
    return JSON_OUTCOMES[outcome];
}

int sim_json_outcome_count(const char* outcomes) {
    int n = 1;
    for (const char* p = outcomes; p && *p; p++) n += *p == ',';
    return n;
}

SimJsonOutcome sim_json_outcome(const char* outcomes, int attempt) {
    int index = attempt % sim_json_outcome_count(outcomes);
    const char* p = outcomes ? outcomes : "";
    for (int i = 0; i < index; i++) p = strchr(p, ',') + 1;
    size_t len = strcspn(p, ",");
    while (len && p[len - 1] == ' ') len--;
    while (len && *p == ' ') p++, len--;
    if (len == 0) return SIM_JSON_VALID;
    for (size_t k = 0; k < sizeof JSON_OUTCOMES / sizeof JSON_OUTCOMES[0]; k++) {
        if (strlen(JSON_OUTCOMES[k]) == len && strncmp(p, JSON_OUTCOMES[k], len) == 0) return (SimJsonOutcome)k;
    }
    fprintf(stderr, "W rkllm-sim: unknown [[json]] outcome '%.*s': answering prose\n", (int)len, p);
    return SIM_JSON_PROSE;
}

int sim_directive_error(const char* prompt) {
    return prompt && strstr(prompt, "[[error]]") != NULL;
}

int sim_directive_tokens(const char* prompt) {
    const char* p = find_last(prompt, "[[tokens:");
    while (p) {
        const char* d = p + 9;
        long n = 0;
        const char* q = d;
        while (*q >= '0' && *q <= '9' && n <= MAX_DIRECTIVE_TOKENS) n = n * 10 + (*q++ - '0');
        if (q > d && q[0] == ']' && q[1] == ']') return n > MAX_DIRECTIVE_TOKENS ? MAX_DIRECTIVE_TOKENS : (int)n;
        /* malformed: look for an earlier well-formed one */
        const char* prev = NULL;
        for (const char* s = strstr(prompt, "[[tokens:"); s && s < p; s = strstr(s + 1, "[[tokens:")) prev = s;
        p = prev;
    }
    return -1;
}

/* Appends the token boundaries of text[from..len) to the chunks, with some boundaries that fall right
 * after a multi-byte character moved back into it, so that the callback ends inside the character
 * (RKLLM_RUN_WAITING). */
static void token_chunks(SimOutput* out, size_t from) {
    const char* s = sb_cstr(&out->text);
    size_t len = out->text.len;
    size_t* local;
    int n = sim_token_bounds(s + from, len - from, &local);
    for (int i = 1; i < n; i++) {
        int tok = i - 1;
        if (tok % 2 != 0) continue;
        size_t start = local[i - 1], end = local[i];
        /* original start of this token is >= the (possibly shifted) previous boundary */
        size_t p = start, last = start;
        while (p < end) {
            last = p;
            p += sim_utf8_seq_len(s + from, len - from, p);
        }
        size_t cp_len = end - last;
        if (cp_len < 2 || last < start) continue;
        size_t k = 1 + (size_t)(tok / 2) % (cp_len - 1);
        local[i] = end - k;
    }
    if (!out->bounds) {
        out->bounds = sim_xcalloc(1, sizeof(size_t));
        out->bounds[0] = from;
    }
    out->bounds = sim_xrealloc(out->bounds, ((size_t)out->n_chunks + (size_t)n + 1) * sizeof(size_t));
    for (int i = 1; i <= n; i++) out->bounds[out->n_chunks + i] = from + local[i];
    out->n_chunks += n;
    free(local);
}

/* Fault no_eos: the answer is followed by the end-of-turn marker the runtime does not stop at, then the model
 * starts another answer, and so on (rknn-llm#534: the answer repeated with the EOS token between them). */
static void run_on(Rng* rng, int reply_tokens, int min_tokens, SimOutput* out) {
    int tokens = out->n_chunks;
    int per_turn = reply_tokens > 0 ? reply_tokens : 8;
    size_t from = out->text.len;
    StrBuf turn;
    sb_init(&turn);
    while (tokens < min_tokens) {
        sb_clear(&turn);
        sb_append(&turn, SIM_EOS_MARKER "\n");
        pseudo_text(rng, per_turn, &turn);
        tokens += sim_count_tokens(sb_cstr(&turn));
        sb_append_n(&out->text, turn.data, turn.len);
    }
    sb_free(&turn);
    if (out->text.len > from) token_chunks(out, from);
}

static void say_chunks(SimOutput* out) {
    size_t len = out->text.len;
    out->n_chunks = (int)((len + SAY_CHUNK_BYTES - 1) / SAY_CHUNK_BYTES);
    out->bounds = sim_xcalloc((size_t)out->n_chunks + 1, sizeof(size_t));
    for (int i = 0; i <= out->n_chunks; i++) {
        size_t b = (size_t)i * SAY_CHUNK_BYTES;
        out->bounds[i] = b < len ? b : len;
    }
}

void sim_generate(const SimGenRequest* req, SimOutput* out) {
    memset(out, 0, sizeof(*out));
    sb_init(&out->text);
    sb_append(&out->text, "");
    char* say = sim_directive_say(req->prompt);
    if (say) {
        out->kind = SIM_OUT_SAY;
        sb_append(&out->text, say);
        free(say);
        say_chunks(out);
        out->answer_len = out->text.len;
        Rng more = {req->seed};
        run_on(&more, req->reply_tokens, req->min_tokens, out);
        return;
    }
    Rng rng = {req->seed};
    if (req->think) think_block(&rng, req->dialect, &out->text);
    int n = sim_directive_tokens(req->prompt);
    const SimTool* tool = NULL;
    /* gpt-oss writes every answer in a message of its own; a call is a message to the function instead */
    size_t answer_at = out->text.len;
    if (req->json >= 0) {
        out->kind = SIM_OUT_JSON;
        json_answer(req, &rng, &out->text);
    } else if (n >= 0) {
        out->kind = SIM_OUT_TOKENS;
        pseudo_text(&rng, n, &out->text);
    } else if (req->role_is_tool) {
        /* after a tool result a model answers in prose: what ends an agent's loop */
        out->kind = SIM_OUT_TOOL_ANSWER;
        tool_answer(req->prompt, &out->text);
    } else {
        /* the newest turn decides: tool names in earlier turns of a resent conversation, or in system notes, were
         * dealt with then (calling them again would loop an agent) */
        SimTurn turn;
        sim_newest_turn(req->prompt, &turn);
        if (req->role_is_user && req->tools && turn.kind == SIM_TURN_USER &&
            (tool = sim_tools_find_mentioned(req->tools, turn.text))) {
            out->kind = SIM_OUT_TOOL_CALL;
            tool_call(tool, req->dialect, &out->text);
        } else if (req->role_is_user && turn.kind == SIM_TURN_TOOL_RESULT) {
            out->kind = SIM_OUT_TOOL_ANSWER;
            tool_answer(turn.text, &out->text);
        } else {
            out->kind = SIM_OUT_REPLY;
            pseudo_text(&rng, req->reply_tokens, &out->text);
        }
        sim_turn_free(&turn);
    }
    if (req->dialect == SIM_DIALECT_GPT_OSS && strncmp(out->text.data + answer_at, "<|channel|>", 11) != 0) {
        sb_insert(&out->text, answer_at, GPT_OSS_FINAL);
    }
    token_chunks(out, 0);
    out->answer_len = out->text.len;
    run_on(&rng, req->reply_tokens, req->min_tokens, out);
}

void sim_output_free(SimOutput* out) {
    sb_free(&out->text);
    free(out->bounds);
    memset(out, 0, sizeof(*out));
}
