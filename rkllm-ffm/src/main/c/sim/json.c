/* A small recursive-descent JSON parser and a one-line JSON object writer. */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer.h"

#define JSON_MAX_DEPTH 200

typedef struct {
    const char* p;
    const char* start;
    char* err;
    size_t errlen;
    int failed;
} Parser;

static void fail(Parser* ps, const char* msg) {
    if (!ps->failed && ps->err && ps->errlen) {
        snprintf(ps->err, ps->errlen, "%s at offset %ld", msg, (long)(ps->p - ps->start));
    }
    ps->failed = 1;
}

static void skip_ws(Parser* ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static JsonValue* new_value(JsonType t) {
    JsonValue* v = sim_xcalloc(1, sizeof(JsonValue));
    v->type = t;
    return v;
}

static void append_utf8(StrBuf* sb, unsigned long cp) {
    char b[4];
    if (cp < 0x80) {
        b[0] = (char)cp;
        sb_append_n(sb, b, 1);
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        sb_append_n(sb, b, 2);
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        sb_append_n(sb, b, 3);
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        sb_append_n(sb, b, 4);
    }
}

static int hex4(const char* p, unsigned long* out) {
    unsigned long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned long)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static char* parse_string_raw(Parser* ps) {
    StrBuf sb;
    sb_init(&sb);
    ps->p++; /* opening quote */
    for (;;) {
        unsigned char c = (unsigned char)*ps->p;
        if (c == '\0') {
            fail(ps, "unterminated string");
            break;
        }
        if (c == '"') {
            ps->p++;
            return sb_steal(&sb);
        }
        if (c < 0x20) {
            fail(ps, "control character in string");
            break;
        }
        if (c != '\\') {
            sb_append_char(&sb, (char)c);
            ps->p++;
            continue;
        }
        char e = ps->p[1];
        ps->p += 2;
        switch (e) {
            case '"': sb_append_char(&sb, '"'); break;
            case '\\': sb_append_char(&sb, '\\'); break;
            case '/': sb_append_char(&sb, '/'); break;
            case 'b': sb_append_char(&sb, '\b'); break;
            case 'f': sb_append_char(&sb, '\f'); break;
            case 'n': sb_append_char(&sb, '\n'); break;
            case 'r': sb_append_char(&sb, '\r'); break;
            case 't': sb_append_char(&sb, '\t'); break;
            case 'u': {
                unsigned long cp;
                if (!hex4(ps->p, &cp)) {
                    fail(ps, "bad \\u escape");
                    goto out;
                }
                ps->p += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF && ps->p[0] == '\\' && ps->p[1] == 'u') {
                    unsigned long lo;
                    if (hex4(ps->p + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        ps->p += 6;
                    }
                }
                if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
                append_utf8(&sb, cp);
                break;
            }
            default:
                fail(ps, "bad escape");
                goto out;
        }
    }
out:
    sb_free(&sb);
    return NULL;
}

static JsonValue* parse_value(Parser* ps, int depth);

static void push_item(JsonValue* v, char* key, JsonValue* item) {
    v->items = sim_xrealloc(v->items, (v->n + 1) * sizeof(JsonValue*));
    if (v->type == JV_OBJECT) {
        v->keys = sim_xrealloc(v->keys, (v->n + 1) * sizeof(char*));
        v->keys[v->n] = key;
    }
    v->items[v->n++] = item;
}

static JsonValue* parse_container(Parser* ps, int depth, int is_object) {
    JsonValue* v = new_value(is_object ? JV_OBJECT : JV_ARRAY);
    char close = is_object ? '}' : ']';
    ps->p++;
    skip_ws(ps);
    if (*ps->p == close) {
        ps->p++;
        return v;
    }
    for (;;) {
        char* key = NULL;
        skip_ws(ps);
        if (is_object) {
            if (*ps->p != '"') {
                fail(ps, "expected object key");
                break;
            }
            key = parse_string_raw(ps);
            if (!key) break;
            skip_ws(ps);
            if (*ps->p != ':') {
                free(key);
                fail(ps, "expected ':'");
                break;
            }
            ps->p++;
        }
        JsonValue* item = parse_value(ps, depth + 1);
        if (!item) {
            free(key);
            break;
        }
        push_item(v, key, item);
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == close) {
            ps->p++;
            return v;
        }
        fail(ps, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    json_free(v);
    return NULL;
}

static JsonValue* parse_number(Parser* ps) {
    const char* s = ps->p;
    if (*ps->p == '-') ps->p++;
    if (*ps->p < '0' || *ps->p > '9') {
        fail(ps, "bad number");
        return NULL;
    }
    while ((*ps->p >= '0' && *ps->p <= '9') || *ps->p == '.' || *ps->p == 'e' || *ps->p == 'E' ||
           *ps->p == '+' || *ps->p == '-') {
        ps->p++;
    }
    JsonValue* v = new_value(JV_NUMBER);
    v->str = sim_strndup(s, (size_t)(ps->p - s));
    return v;
}

static JsonValue* parse_value(Parser* ps, int depth) {
    if (depth > JSON_MAX_DEPTH) {
        fail(ps, "nesting too deep");
        return NULL;
    }
    skip_ws(ps);
    char c = *ps->p;
    if (c == '{' || c == '[') return parse_container(ps, depth, c == '{');
    if (c == '"') {
        char* s = parse_string_raw(ps);
        if (!s) return NULL;
        JsonValue* v = new_value(JV_STRING);
        v->str = s;
        return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number(ps);
    if (strncmp(ps->p, "true", 4) == 0 || strncmp(ps->p, "false", 5) == 0) {
        JsonValue* v = new_value(JV_BOOL);
        v->boolean = c == 't';
        ps->p += v->boolean ? 4 : 5;
        return v;
    }
    if (strncmp(ps->p, "null", 4) == 0) {
        ps->p += 4;
        return new_value(JV_NULL);
    }
    fail(ps, "unexpected character");
    return NULL;
}

JsonValue* json_parse(const char* text, char* err, size_t errlen) {
    Parser ps = {text, text, err, errlen, 0};
    if (!text) {
        fail(&ps, "no text");
        return NULL;
    }
    JsonValue* v = parse_value(&ps, 0);
    if (!v) return NULL;
    skip_ws(&ps);
    if (*ps.p != '\0') {
        fail(&ps, "trailing characters");
        json_free(v);
        return NULL;
    }
    return v;
}

JsonValue* json_parse_prefix(const char* text, const char** end) {
    Parser ps = {text, text, NULL, 0, 0};
    if (!text) return NULL;
    JsonValue* v = parse_value(&ps, 0);
    if (v && end) *end = ps.p;
    return v;
}

void json_append_value(StrBuf* sb, const JsonValue* v) {
    switch (v->type) {
        case JV_NULL: sb_append(sb, "null"); break;
        case JV_BOOL: sb_append(sb, v->boolean ? "true" : "false"); break;
        case JV_NUMBER: sb_append(sb, v->str); break;
        case JV_STRING: json_append_string(sb, v->str, strlen(v->str)); break;
        case JV_ARRAY:
        case JV_OBJECT:
            sb_append_char(sb, v->type == JV_OBJECT ? '{' : '[');
            for (size_t i = 0; i < v->n; i++) {
                if (i) sb_append(sb, ", ");
                if (v->type == JV_OBJECT) {
                    json_append_string(sb, v->keys[i], strlen(v->keys[i]));
                    sb_append(sb, ": ");
                }
                json_append_value(sb, v->items[i]);
            }
            sb_append_char(sb, v->type == JV_OBJECT ? '}' : ']');
            break;
    }
}

void json_free(JsonValue* v) {
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) {
        json_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

const JsonValue* json_get(const JsonValue* obj, const char* key) {
    if (!obj || obj->type != JV_OBJECT) return NULL;
    for (size_t i = 0; i < obj->n; i++) {
        if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
    }
    return NULL;
}

void json_append_string(StrBuf* sb, const char* s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    sb_append_char(sb, '"');
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            size_t n = sim_utf8_seq_len(s, len, i);
            if (n == 1) sb_append(sb, "\\ufffd");
            else sb_append_n(sb, s + i, n);
            i += n;
            continue;
        }
        switch (c) {
            case '"': sb_append(sb, "\\\""); break;
            case '\\': sb_append(sb, "\\\\"); break;
            case '\n': sb_append(sb, "\\n"); break;
            case '\r': sb_append(sb, "\\r"); break;
            case '\t': sb_append(sb, "\\t"); break;
            case '\b': sb_append(sb, "\\b"); break;
            case '\f': sb_append(sb, "\\f"); break;
            default:
                if (c < 0x20 || c == 0x7F) {
                    char e[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
                    sb_append(sb, e);
                } else {
                    sb_append_char(sb, (char)c);
                }
        }
        i++;
    }
    sb_append_char(sb, '"');
}

void jw_begin(JsonWriter* w, StrBuf* sb) {
    w->sb = sb;
    w->count = 0;
    sb_append_char(sb, '{');
}

void jw_end(JsonWriter* w) {
    sb_append_char(w->sb, '}');
}

void jw_key(JsonWriter* w, const char* key) {
    if (w->count++) sb_append_char(w->sb, ',');
    json_append_string(w->sb, key, strlen(key));
    sb_append_char(w->sb, ':');
}

void jw_strn(JsonWriter* w, const char* key, const char* value, size_t len) {
    jw_key(w, key);
    if (value) json_append_string(w->sb, value, len);
    else sb_append(w->sb, "null");
}

void jw_str(JsonWriter* w, const char* key, const char* value) {
    jw_strn(w, key, value, value ? strlen(value) : 0);
}

void jw_int(JsonWriter* w, const char* key, long long value) {
    jw_key(w, key);
    sb_printf(w->sb, "%lld", value);
}

void jw_num(JsonWriter* w, const char* key, double value) {
    jw_key(w, key);
    if (isfinite(value)) sb_printf(w->sb, "%.7g", value);
    else sb_append(w->sb, "null");
}

void jw_bool(JsonWriter* w, const char* key, int value) {
    jw_key(w, key);
    sb_append(w->sb, value ? "true" : "false");
}

void jw_null(JsonWriter* w, const char* key) {
    jw_key(w, key);
    sb_append(w->sb, "null");
}
