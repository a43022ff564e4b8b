/* Growable strings and allocation helpers (allocation failure aborts: this is a test double). */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void* sim_xmalloc(size_t n) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "E rkllm-sim: out of memory\n");
        abort();
    }
    return p;
}

void* sim_xcalloc(size_t n, size_t size) {
    void* p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "E rkllm-sim: out of memory\n");
        abort();
    }
    return p;
}

void* sim_xrealloc(void* p, size_t n) {
    void* q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "E rkllm-sim: out of memory\n");
        abort();
    }
    return q;
}

char* sim_strndup(const char* s, size_t n) {
    char* d = sim_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char* sim_strdup(const char* s) {
    return s ? sim_strndup(s, strlen(s)) : NULL;
}

void sb_init(StrBuf* sb) {
    sb->data = NULL;
    sb->len = 0;
    sb->cap = 0;
}

void sb_free(StrBuf* sb) {
    free(sb->data);
    sb_init(sb);
}

void sb_clear(StrBuf* sb) {
    sb->len = 0;
    if (sb->data) sb->data[0] = '\0';
}

static void sb_reserve(StrBuf* sb, size_t extra) {
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap) return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need) cap *= 2;
    sb->data = sim_xrealloc(sb->data, cap);
    sb->cap = cap;
}

void sb_append_n(StrBuf* sb, const char* s, size_t n) {
    sb_reserve(sb, n);
    if (n) memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_insert(StrBuf* sb, size_t at, const char* s) {
    size_t n = strlen(s);
    if (at > sb->len) at = sb->len;
    sb_reserve(sb, n);
    memmove(sb->data + at + n, sb->data + at, sb->len - at + 1);
    memcpy(sb->data + at, s, n);
    sb->len += n;
}

void sb_append(StrBuf* sb, const char* s) {
    if (s) sb_append_n(sb, s, strlen(s));
}

void sb_append_char(StrBuf* sb, char c) {
    sb_append_n(sb, &c, 1);
}

void sb_printf(StrBuf* sb, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        sb_reserve(sb, (size_t)n);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
        sb->len += (size_t)n;
    }
    va_end(ap2);
}

const char* sb_cstr(const StrBuf* sb) {
    return sb->data ? sb->data : "";
}

char* sb_steal(StrBuf* sb) {
    char* s = sb->data ? sb->data : sim_strdup("");
    sb_init(sb);
    return s;
}
