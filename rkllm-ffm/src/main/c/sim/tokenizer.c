/*
 * The simulated tokenizer. Scanning left to right, a token is:
 *   - optional leading whitespace (space, \t, \n, \r, \v, \f), always attached to what follows;
 *   - then one of:
 *       a "<|...|>" special marker (no whitespace inside, at most SIM_TOKEN_SPECIAL_MAX bytes): 1 token;
 *       up to SIM_TOKEN_RUN_CHARS characters of a run of ASCII letters/digits (a run of length L
 *         yields ceil(L / SIM_TOKEN_RUN_CHARS) tokens; only the first carries the whitespace);
 *       one non-ASCII code point (a valid UTF-8 sequence; an invalid byte counts as one);
 *       one other ASCII character (punctuation, symbols, control characters).
 *   - whitespace at the very end of the text, with nothing after it, is one token of its own.
 */
#include "tokenizer.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static int is_ws(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_alnum_ascii(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

size_t sim_utf8_seq_len(const char* s, size_t len, size_t i) {
    const unsigned char* u = (const unsigned char*)s;
    unsigned char c = u[i];
    size_t n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3;
    else if (c >= 0xF0 && c <= 0xF4) n = 4;
    else return 1;
    if (i + n > len) return 1;
    for (size_t k = 1; k < n; k++) {
        if ((u[i + k] & 0xC0) != 0x80) return 1;
    }
    return n;
}

int sim_utf8_is_boundary(const char* s, size_t len, size_t pos) {
    size_t i = 0;
    while (i < pos && i < len) i += sim_utf8_seq_len(s, len, i);
    return i == pos;
}

size_t sim_utf8_clip(const char* s, size_t len, size_t max) {
    size_t i = 0;
    if (max >= len) return len;
    while (i < len) {
        size_t n = sim_utf8_seq_len(s, len, i);
        if (i + n > max) break;
        i += n;
    }
    return i;
}

/* Length of a "<|...|>" marker starting at s[i], or 0. */
static size_t special_len(const char* s, size_t len, size_t i) {
    if (i + 1 >= len || s[i] != '<' || s[i + 1] != '|') return 0;
    for (size_t j = i + 2; j + 1 < len && j + 2 - i <= SIM_TOKEN_SPECIAL_MAX; j++) {
        unsigned char c = (unsigned char)s[j];
        if (is_ws(c) || c == '<') return 0;
        if (c == '|' && s[j + 1] == '>') return j + 2 - i;
    }
    return 0;
}

int sim_tokenize(const char* s, size_t len, SimTokenFn fn, void* userdata) {
    int count = 0;
    size_t i = 0;
    while (i < len) {
        size_t start = i;
        while (i < len && is_ws((unsigned char)s[i])) i++;
        if (i == len) {
            if (fn) fn(userdata, start, len);
            count++;
            break;
        }
        unsigned char c = (unsigned char)s[i];
        size_t sp = special_len(s, len, i);
        if (sp) {
            i += sp;
        } else if (is_alnum_ascii(c)) {
            size_t run_end = i;
            while (run_end < len && is_alnum_ascii((unsigned char)s[run_end])) run_end++;
            size_t n = run_end - i < SIM_TOKEN_RUN_CHARS ? run_end - i : SIM_TOKEN_RUN_CHARS;
            i += n;
            while (i < run_end) {
                if (fn) fn(userdata, start, i);
                count++;
                start = i;
                n = run_end - i < SIM_TOKEN_RUN_CHARS ? run_end - i : SIM_TOKEN_RUN_CHARS;
                i += n;
            }
        } else if (c >= 0x80) {
            i += sim_utf8_seq_len(s, len, i);
        } else {
            i++;
        }
        if (fn) fn(userdata, start, i);
        count++;
    }
    return count;
}

int sim_count_tokens(const char* s) {
    return s ? sim_tokenize(s, strlen(s), NULL, NULL) : 0;
}

typedef struct {
    size_t* bounds;
    int n;
} BoundsAcc;

static void collect_bound(void* ud, size_t start, size_t end) {
    BoundsAcc* acc = ud;
    (void)start;
    acc->bounds[++acc->n] = end;
}

int sim_token_bounds(const char* s, size_t len, size_t** bounds) {
    int n = sim_tokenize(s, len, NULL, NULL);
    BoundsAcc acc = {sim_xcalloc((size_t)n + 1, sizeof(size_t)), 0};
    acc.bounds[0] = 0;
    sim_tokenize(s, len, collect_bound, &acc);
    *bounds = acc.bounds;
    return n;
}

uint64_t sim_fnv1a(uint64_t seed, const void* data, size_t len) {
    const unsigned char* p = data;
    uint64_t h = seed;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

int32_t sim_token_id(const char* s, size_t len) {
    return (int32_t)(sim_fnv1a(SIM_FNV_SEED, s, len) % 151643ULL);
}
