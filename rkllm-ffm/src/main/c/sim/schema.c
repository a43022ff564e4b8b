/* JSON Schema support of the [[json]] directive: see schema.h. */
#include "schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16

static const char* const JSON_TYPES[] = {"object", "array", "string", "integer", "number", "boolean", "null"};

static int is_schema(const JsonValue* v) {
    if (!v || v->type != JV_OBJECT) return 0;
    if (json_get(v, "$schema") || json_get(v, "properties")) return 1;
    /* a schema made of others: {"$ref": "#/$defs/Person", "$defs": ...} (zod), {"allOf": [...]} */
    static const char* const composed[] = {"allOf", "anyOf", "oneOf"};
    for (size_t i = 0; i < sizeof composed / sizeof composed[0]; i++) {
        const JsonValue* parts = json_get(v, composed[i]);
        if (parts && parts->type == JV_ARRAY && parts->n && parts->items[0]->type == JV_OBJECT) return 1;
    }
    const JsonValue* ref = json_get(v, "$ref");
    if (ref && ref->type == JV_STRING && ref->str[0] == '#') return 1;
    const JsonValue* t = json_get(v, "type");
    if (!t || t->type != JV_STRING) return 0;
    for (size_t i = 0; i < sizeof JSON_TYPES / sizeof JSON_TYPES[0]; i++) {
        if (strcmp(t->str, JSON_TYPES[i]) == 0) return 1;
    }
    return 0;
}

/* The schema an object is or wraps: OpenAI's {"type": "json_schema", "json_schema": {"name", "schema"}}, a
 * tool's "parameters", Ollama's "format"... */
static const JsonValue* unwrap(const JsonValue* v, int depth) {
    static const char* const wrappers[] = {"json_schema", "schema", "format", "parameters", "input_schema"};
    if (!v || v->type != JV_OBJECT || depth > 3) return NULL;
    if (is_schema(v)) return v;
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++) {
        const JsonValue* inner = unwrap(json_get(v, wrappers[i]), depth + 1);
        if (inner) return inner;
    }
    return NULL;
}

const JsonValue* sim_schema_find(const char* text, JsonValue** root) {
    *root = NULL;
    const JsonValue* found = NULL;
    const char* p = text ? strchr(text, '{') : NULL;
    while (p) {
        const char* end = NULL;
        JsonValue* v = json_parse_prefix(p, &end);
        const JsonValue* schema = unwrap(v, 0);
        if (schema) {
            json_free(*root);
            *root = v;
            found = schema;
            p = strchr(end, '{');
        } else {
            json_free(v);
            p = strchr(p + 1, '{'); /* a schema may sit inside this object, or it was no JSON */
        }
    }
    return found;
}

typedef struct {
    const JsonValue* root;
    StrBuf* out;
} Gen;

/* A JSON pointer ("/$defs/Name") into root. */
static const JsonValue* pointer(const JsonValue* root, const char* path) {
    const JsonValue* v = root;
    while (v && *path == '/') {
        path++;
        size_t n = strcspn(path, "/");
        char* key = sim_strndup(path, n);
        v = json_get(v, key);
        free(key);
        path += n;
    }
    return *path ? NULL : v;
}

static const JsonValue* resolve(const Gen* g, const JsonValue* s) {
    for (int hops = 0; s && hops < MAX_DEPTH; hops++) {
        const JsonValue* ref = json_get(s, "$ref");
        if (!ref || ref->type != JV_STRING || ref->str[0] != '#') return s;
        s = pointer(g->root, ref->str + 1);
    }
    return s;
}

static const char* type_of(const JsonValue* s) {
    const JsonValue* t = json_get(s, "type");
    if (t && t->type == JV_STRING) return t->str;
    if (t && t->type == JV_ARRAY) {
        for (size_t i = 0; i < t->n; i++) {
            if (t->items[i]->type == JV_STRING && strcmp(t->items[i]->str, "null") != 0) return t->items[i]->str;
        }
        if (t->n && t->items[0]->type == JV_STRING) return t->items[0]->str;
    }
    if (json_get(s, "properties")) return "object";
    if (json_get(s, "items")) return "array";
    return NULL;
}

static int number_of(const JsonValue* s, const char* key, double* out) {
    const JsonValue* v = json_get(s, key);
    if (!v || v->type != JV_NUMBER) return 0;
    *out = strtod(v->str, NULL);
    return 1;
}

static void write_value(const Gen* g, const JsonValue* s, int salt, int depth);

static void write_string(const Gen* g, const JsonValue* s, int salt) {
    static const char* const formats[][2] = {
        {"date-time", "2025-01-01T00:00:00Z"}, {"date", "2025-01-01"}, {"time", "12:00:00"},
        {"email", "sim@example.com"}, {"uri", "https://example.com/sim"}, {"url", "https://example.com/sim"},
        {"uuid", "00000000-0000-4000-8000-000000000000"}, {"hostname", "example.com"}, {"ipv4", "192.0.2.1"},
    };
    const JsonValue* format = json_get(s, "format");
    if (format && format->type == JV_STRING) {
        for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
            if (strcmp(format->str, formats[i][0]) == 0) {
                sb_printf(g->out, "\"%s\"", formats[i][1]);
                return;
            }
        }
    }
    StrBuf v;
    sb_init(&v);
    sb_append(&v, "sim");
    if (salt) sb_printf(&v, "%d", salt + 1);
    double min_len = 0, max_len = 0;
    if (number_of(s, "minLength", &min_len)) {
        while ((double)v.len < min_len) sb_append_char(&v, 'x');
    }
    if (number_of(s, "maxLength", &max_len) && (double)v.len > max_len) v.len = max_len > 0 ? (size_t)max_len : 0;
    json_append_string(g->out, sb_cstr(&v), v.len);
    sb_free(&v);
}

/* A bound of a number: draft 6 on gives exclusiveMinimum/exclusiveMaximum as numbers, draft 4 and OpenAPI 3.0 as a
 * boolean beside minimum/maximum. The stricter one counts when there are both. */
typedef struct {
    int set;
    double v;
    int exclusive;
} Bound;

static Bound bound(const JsonValue* s, const char* key, const char* exclusive_key, int lower) {
    Bound b = {0, 0, 0};
    double x;
    const JsonValue* flag = json_get(s, exclusive_key);
    if (number_of(s, key, &x)) b = (Bound){1, x, flag && flag->type == JV_BOOL && flag->boolean};
    if (number_of(s, exclusive_key, &x) && (!b.set || (lower ? x >= b.v : x <= b.v))) b = (Bound){1, x, 1};
    return b;
}

static int below(Bound lo, double v) {
    return lo.set && (v < lo.v || (lo.exclusive && v <= lo.v));
}

static int above(Bound hi, double v) {
    return hi.set && (v > hi.v || (hi.exclusive && v >= hi.v));
}

/* The shortest of %.15g and %.17g that keeps v inside its bounds (15 digits write 0.3 for 3 x 0.1, as a person
 * would; 17 are exact). */
static void append_number(StrBuf* out, double v, Bound lo, Bound hi) {
    char text[40];
    snprintf(text, sizeof text, "%.15g", v);
    double back = strtod(text, NULL);
    if (below(lo, back) || above(hi, back)) snprintf(text, sizeof text, "%.17g", v);
    sb_append(out, text);
}

/* A whole number is what a model writes for "number" too (a count, a timeout in ms: clients such as Codex declare
 * those as "number" and parse them as integers); a fraction only when the bounds leave no whole number. */
static void write_number(const Gen* g, const JsonValue* s, int integer, int salt) {
    Bound lo = bound(s, "minimum", "exclusiveMinimum", 1), hi = bound(s, "maximum", "exclusiveMaximum", 0);
    double v = 1, m;
    if (below(lo, v)) v = lo.exclusive ? floor(lo.v) + 1 : ceil(lo.v);
    v += salt;
    if (above(hi, v)) v = hi.exclusive ? ceil(hi.v) - 1 : floor(hi.v);
    if (!integer && below(lo, v)) v = (lo.v + hi.v) / 2; /* no whole number in the range: its middle */
    if (number_of(s, "multipleOf", &m) && m > 0) {
        double k = ceil(v / m - 1e-9);
        if (below(lo, k * m)) k++;
        if (above(hi, k * m)) k = ceil(v / m - 1e-9) - 1;
        v = k * m;
    }
    if (integer && fabs(v) < 9e18) sb_printf(g->out, "%lld", (long long)llround(v));
    else append_number(g->out, v, lo, hi);
}

/* An array of max(minItems, 1) items, or of one item per tuple place (prefixItems, or draft 7's items list), at most
 * maxItems; item k past the tuple places follows items (additionalItems beside a draft 7 tuple). */
static void write_array(const Gen* g, const JsonValue* s, int depth) {
    const JsonValue* items = json_get(s, "items");
    const JsonValue* tuple = json_get(s, "prefixItems");
    const JsonValue* rest = items;
    if (!tuple || tuple->type != JV_ARRAY) {
        tuple = items && items->type == JV_ARRAY ? items : NULL;
        if (tuple) rest = json_get(s, "additionalItems");
    }
    int places = tuple ? (int)tuple->n : 0;
    double min_items = 1, max_items = -1;
    number_of(s, "minItems", &min_items);
    number_of(s, "maxItems", &max_items);
    int count = places > 0 ? places : 1;
    if (min_items > count) count = (int)min_items;
    if (max_items >= 0 && max_items < count) count = (int)max_items;
    if (tuple && rest && rest->type == JV_BOOL && !rest->boolean && count > places) count = places;
    sb_append_char(g->out, '[');
    for (int k = 0; k < count; k++) {
        const JsonValue* item = k < places ? tuple->items[k] : rest;
        if (k) sb_append(g->out, ", ");
        write_value(g, item && item->type == JV_OBJECT ? item : NULL, k, depth + 1);
    }
    sb_append_char(g->out, ']');
}

#define MAX_PARTS 16

/* The schemas one object must meet at once: the schema and the parts of its allOf (and of theirs), $refs resolved. */
typedef struct {
    const JsonValue* items[MAX_PARTS];
    int n;
} Parts;

static void collect_parts(const Gen* g, const JsonValue* s, Parts* parts, int depth) {
    s = resolve(g, s);
    if (!s || s->type != JV_OBJECT || parts->n == MAX_PARTS || depth > MAX_DEPTH) return;
    parts->items[parts->n++] = s;
    const JsonValue* all = json_get(s, "allOf");
    for (size_t i = 0; all && all->type == JV_ARRAY && i < all->n; i++) {
        collect_parts(g, all->items[i], parts, depth + 1);
    }
}

/* An allOf whose parts describe an object: one object meets them all (an intersection of object types). */
static int object_parts(const Gen* g, const JsonValue* s) {
    Parts parts = {{0}, 0};
    collect_parts(g, s, &parts, 0);
    for (int j = 0; j < parts.n; j++) {
        const char* t = type_of(parts.items[j]);
        if (t && strcmp(t, "object") == 0) return 1;
    }
    return 0;
}

/* Whether one of parts[0..upto) has the property key. */
static int has_property(const Parts* parts, int upto, const char* key) {
    for (int j = 0; j < upto; j++) {
        if (json_get(json_get(parts->items[j], "properties"), key)) return 1;
    }
    return 0;
}

/* Whether list[0..upto) names name. */
static int listed(const JsonValue* list, size_t upto, const char* name) {
    for (size_t i = 0; list && list->type == JV_ARRAY && i < upto && i < list->n; i++) {
        if (list->items[i]->type == JV_STRING && strcmp(list->items[i]->str, name) == 0) return 1;
    }
    return 0;
}

/* An object with every property and every required name of the schema and its allOf parts (each key once),
 * leaving out skip and giving retype a value of the wrong type. */
static void write_object(const Gen* g, const JsonValue* s, int depth, const char* skip, const char* retype) {
    Parts parts = {{0}, 0};
    collect_parts(g, s, &parts, 0);
    int count = 0;
    sb_append_char(g->out, '{');
    for (int j = 0; j < parts.n; j++) {
        const JsonValue* props = json_get(parts.items[j], "properties");
        for (size_t i = 0; props && props->type == JV_OBJECT && i < props->n; i++) {
            const char* key = props->keys[i];
            if ((skip && strcmp(key, skip) == 0) || has_property(&parts, j, key)) continue;
            if (count++) sb_append(g->out, ", ");
            json_append_string(g->out, key, strlen(key));
            sb_append(g->out, ": ");
            if (retype && strcmp(key, retype) == 0) {
                const JsonValue* ps = resolve(g, props->items[i]);
                const char* t = ps ? type_of(ps) : NULL;
                sb_append(g->out, t && strcmp(t, "string") == 0 ? "42" : "\"wrong type\"");
            } else {
                write_value(g, props->items[i], 0, depth + 1);
            }
        }
    }
    for (int j = 0; j < parts.n; j++) {
        const JsonValue* required = json_get(parts.items[j], "required");
        for (size_t i = 0; required && required->type == JV_ARRAY && i < required->n; i++) {
            const JsonValue* name = required->items[i];
            if (name->type != JV_STRING || has_property(&parts, parts.n, name->str) ||
                (skip && strcmp(name->str, skip) == 0) || listed(required, i, name->str)) {
                continue;
            }
            int earlier = 0;
            for (int k = 0; k < j && !earlier; k++) {
                earlier = listed(json_get(parts.items[k], "required"), (size_t)-1, name->str);
            }
            if (earlier) continue;
            if (count++) sb_append(g->out, ", ");
            json_append_string(g->out, name->str, strlen(name->str));
            sb_append(g->out, ": \"sim\"");
        }
    }
    sb_append_char(g->out, '}');
}

static void write_value(const Gen* g, const JsonValue* s, int salt, int depth) {
    s = resolve(g, s);
    if (!s || s->type != JV_OBJECT || depth > MAX_DEPTH) {
        write_string(g, NULL, salt); /* no schema: any value will do */
        return;
    }
    const JsonValue* c = json_get(s, "const");
    const JsonValue* e = json_get(s, "enum");
    if (c) {
        json_append_value(g->out, c);
        return;
    }
    if (e && e->type == JV_ARRAY && e->n) {
        json_append_value(g->out, e->items[(size_t)salt % e->n]);
        return;
    }
    if (json_get(s, "allOf") && object_parts(g, s)) {
        write_object(g, s, depth, NULL, NULL);
        return;
    }
    static const char* const alternatives[] = {"anyOf", "oneOf", "allOf"};
    for (size_t i = 0; i < sizeof alternatives / sizeof alternatives[0]; i++) {
        const JsonValue* alt = json_get(s, alternatives[i]);
        if (!alt || alt->type != JV_ARRAY || !alt->n) continue;
        const JsonValue* pick = alt->items[0]; /* the first that is not just null */
        for (size_t k = 0; k < alt->n; k++) {
            const JsonValue* t = json_get(resolve(g, alt->items[k]), "type");
            if (!t || t->type != JV_STRING || strcmp(t->str, "null") != 0) {
                pick = alt->items[k];
                break;
            }
        }
        write_value(g, pick, salt, depth + 1);
        return;
    }
    const char* type = type_of(s);
    if (!type || strcmp(type, "string") == 0) write_string(g, s, salt);
    else if (strcmp(type, "object") == 0) write_object(g, s, depth, NULL, NULL);
    else if (strcmp(type, "array") == 0) write_array(g, s, depth);
    else if (strcmp(type, "integer") == 0) write_number(g, s, 1, salt);
    else if (strcmp(type, "number") == 0) write_number(g, s, 0, salt);
    else if (strcmp(type, "boolean") == 0) sb_append(g->out, "true");
    else sb_append(g->out, "null");
}

/* Valid JSON that the schema rejects. */
static void write_invalid(const Gen* g, const JsonValue* s) {
    s = resolve(g, s);
    const char* type = s ? type_of(s) : NULL;
    if (!type) {
        sb_append(g->out, "[\"not an object\"]");
    } else if (strcmp(type, "object") == 0) {
        const JsonValue* required = json_get(s, "required");
        const JsonValue* props = json_get(s, "properties");
        if (required && required->type == JV_ARRAY && required->n && required->items[0]->type == JV_STRING) {
            write_object(g, s, 0, required->items[0]->str, NULL);
        } else if (props && props->type == JV_OBJECT && props->n) {
            write_object(g, s, 0, NULL, props->keys[0]);
        } else {
            sb_append(g->out, "[\"not an object\"]");
        }
    } else if (strcmp(type, "array") == 0) {
        sb_append(g->out, "{\"not\": \"an array\"}");
    } else if (strcmp(type, "string") == 0) {
        sb_append(g->out, "42");
    } else {
        sb_printf(g->out, "\"not a %s\"", type);
    }
}

void sim_schema_instance(const JsonValue* schema, int invalid, StrBuf* out) {
    Gen g = {schema, out}; /* "#/..." points into the schema document itself */
    if (!schema) {
        sb_append(out, invalid ? "[\"not an object\"]" : "{\"answer\": \"sim\"}");
    } else if (invalid) {
        write_invalid(&g, schema);
    } else {
        write_value(&g, schema, 0, 0);
    }
}
