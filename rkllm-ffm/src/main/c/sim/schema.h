/*
 * JSON Schema for the [[json]] directive: finding the schema a prompt (or the system part) carries, and
 * writing an instance of it, valid or deliberately invalid. Rules in docs/simulated-runtime.md
 * ("Structured output").
 */
#ifndef RKLLM_SIM_SCHEMA_H
#define RKLLM_SIM_SCHEMA_H

#include "common.h"
#include "json.h"
#include "strbuf.h"

/* The last JSON Schema in text: a JSON object with "$schema", "properties", a JSON type as "type", a local "$ref" or
 * an "allOf"/"anyOf"/"oneOf" of objects, or such an object under a wrapper key ("json_schema", "schema", "format", "parameters", "input_schema"). NULL when there
 * is none; otherwise *root gets the parsed object holding it (to free with json_free). */
SIM_HIDDEN const JsonValue* sim_schema_find(const char* text, JsonValue** root);

/* Appends an instance of schema (resolving "#/..." $refs within it) as one-line JSON: valid, or, when invalid,
 * valid JSON that breaks the schema (a required property left out, a property of the wrong type, or the wrong
 * type at the top). A NULL schema means any JSON object: {"answer": "sim"} (invalid: an array). */
SIM_HIDDEN void sim_schema_instance(const JsonValue* schema, int invalid, StrBuf* out);

#endif
