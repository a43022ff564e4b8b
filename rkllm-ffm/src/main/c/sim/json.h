/*
 * Minimal JSON support: a parser (for the tools JSON given to rkllm_set_function_tools and the schemas of
 * the [[json]] directive), a serializer of parsed values, and a writer of single-line objects (for the trace). Strings are written as UTF-8 with control
 * characters escaped; invalid UTF-8 bytes become \ufffd so every line stays valid JSON.
 */
#ifndef RKLLM_SIM_JSON_H
#define RKLLM_SIM_JSON_H

#include <stddef.h>
#include "common.h"
#include "strbuf.h"

typedef enum { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT } JsonType;

typedef struct JsonValue {
    JsonType type;
    int boolean;
    char* str;                /* JV_STRING: decoded UTF-8; JV_NUMBER: the literal text */
    struct JsonValue** items; /* JV_ARRAY / JV_OBJECT values */
    char** keys;              /* JV_OBJECT keys (decoded) */
    size_t n;
} JsonValue;

/* Parses a complete JSON text; NULL (and a message in err) on error. */
SIM_HIDDEN JsonValue* json_parse(const char* text, char* err, size_t errlen);
/* Parses the one JSON value text starts with (after whitespace), whatever follows it; *end gets the byte after
 * it. NULL when there is none. */
SIM_HIDDEN JsonValue* json_parse_prefix(const char* text, const char** end);
SIM_HIDDEN void json_free(JsonValue* v);
/* Member of an object by key (first match), or NULL. */
SIM_HIDDEN const JsonValue* json_get(const JsonValue* obj, const char* key);

/* Appends s[0..len) as a quoted JSON string. */
SIM_HIDDEN void json_append_string(StrBuf* sb, const char* s, size_t len);
/* Appends v as JSON text on one line, ", " and ": " between items (as Python's json.dumps). */
SIM_HIDDEN void json_append_value(StrBuf* sb, const JsonValue* v);

/* Writer of one JSON object: jw_begin, then fields, then jw_end. Nested objects: jw_key + jw_begin. */
typedef struct {
    StrBuf* sb;
    int count;
} JsonWriter;

SIM_HIDDEN void jw_begin(JsonWriter* w, StrBuf* sb);
SIM_HIDDEN void jw_end(JsonWriter* w);
SIM_HIDDEN void jw_key(JsonWriter* w, const char* key);
SIM_HIDDEN void jw_str(JsonWriter* w, const char* key, const char* value); /* NULL -> null */
SIM_HIDDEN void jw_strn(JsonWriter* w, const char* key, const char* value, size_t len);
SIM_HIDDEN void jw_int(JsonWriter* w, const char* key, long long value);
SIM_HIDDEN void jw_num(JsonWriter* w, const char* key, double value); /* non-finite -> null */
SIM_HIDDEN void jw_bool(JsonWriter* w, const char* key, int value);
SIM_HIDDEN void jw_null(JsonWriter* w, const char* key);

#endif
