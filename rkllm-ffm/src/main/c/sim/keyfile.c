/* The simulators' key: value text files (see keyfile.h). */
#include "keyfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

int sim_parse_int(const char* s, int* out) {
    char* end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno || v < -2147483647L || v > 2147483647L) return -1;
    *out = (int)v;
    return 0;
}

int sim_parse_double(const char* s, double* out) {
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno) return -1;
    *out = v;
    return 0;
}

static char* unescaped(const char* s, size_t len) {
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "");
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && i + 1 < len) {
            char c = s[i + 1];
            const char* rep = c == 'n' ? "\n" : c == 't' ? "\t" : c == 'r' ? "\r" : c == '\\' ? "\\" : c == '"' ? "\"" : NULL;
            if (rep) {
                sb_append(&sb, rep);
                i++;
                continue;
            }
        }
        sb_append_char(&sb, s[i]);
    }
    return sb_steal(&sb);
}

static void strip(const char** s, const char** e) {
    while (*s < *e && (**s == ' ' || **s == '\t')) (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r')) (*e)--;
}

int sim_keyfile_parse(const char* text, size_t len, const char* magic, const char* origin, bool unescape,
                      SimKeyFn fn, void* ctx, char* err, size_t errlen) {
    const char* end = text + len;
    const char* nl = memchr(text, '\n', len);
    const char* fe = nl ? nl : end;
    while (fe > text && fe[-1] == '\r') fe--;
    if ((size_t)(fe - text) != strlen(magic) || memcmp(text, magic, (size_t)(fe - text)) != 0) return -2;
    int line_no = 1;
    for (const char* p = nl ? nl + 1 : end; p < end;) {
        line_no++;
        const char* le = memchr(p, '\n', (size_t)(end - p));
        if (!le) le = end;
        const char* s = p;
        const char* e = le;
        p = le < end ? le + 1 : end;
        strip(&s, &e);
        if (s == e || *s == '#') continue;
        const char* colon = memchr(s, ':', (size_t)(e - s));
        if (!colon) {
            snprintf(err, errlen, "%s:%d: expected 'key: value'", origin, line_no);
            return -1;
        }
        const char* ks = s;
        const char* ke = colon;
        strip(&ks, &ke);
        const char* vs = colon + 1;
        const char* ve = e;
        strip(&vs, &ve);
        if (ve - vs >= 2 && *vs == '"' && ve[-1] == '"') {
            vs++;
            ve--;
        }
        char* key = sim_strndup(ks, (size_t)(ke - ks));
        char* value = unescape ? unescaped(vs, (size_t)(ve - vs)) : sim_strndup(vs, (size_t)(ve - vs));
        char lerr[256] = "";
        int rc = fn(ctx, key, value, lerr, sizeof lerr);
        free(key);
        if (rc) {
            snprintf(err, errlen, "%s:%d: %s", origin, line_no, lerr);
            return -1;
        }
    }
    return 0;
}

char* sim_read_file(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf text;
    sb_init(&text);
    sb_append(&text, "");
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sb_append_n(&text, chunk, n);
    fclose(f);
    *len = text.len;
    return sb_steal(&text);
}

char* sim_file_stem(const char* path) {
    const char* base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char* dot = strrchr(base, '.');
    return sim_strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}
