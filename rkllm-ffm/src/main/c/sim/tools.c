/* Tool extraction from tools JSON and the rendering of the tools system prompt. */
#include "tools.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "strbuf.h"

static void add_tool(SimToolList* list, const char* name, const char* prop, const char* parameters) {
    list->items = sim_xrealloc(list->items, (list->n + 1) * sizeof(SimTool));
    list->items[list->n].name = sim_strdup(name);
    list->items[list->n].first_property = sim_strdup(prop);
    list->items[list->n].parameters = sim_strdup(parameters);
    list->n++;
}

/* The tool's parameters schema: "parameters" (OpenAI), "input_schema" (Anthropic), "inputSchema" (MCP), or
 * "properties" directly in the tool. */
static const JsonValue* parameters_of(const JsonValue* tool) {
    static const char* const schema_keys[] = {"parameters", "input_schema", "inputSchema"};
    for (size_t i = 0; i < sizeof schema_keys / sizeof schema_keys[0]; i++) {
        const JsonValue* schema = json_get(tool, schema_keys[i]);
        if (schema && schema->type == JV_OBJECT) return schema;
    }
    return json_get(tool, "properties") ? tool : NULL;
}

/* A tool is any object with a string "name"; its subtree (the schema) is not searched further. */
static void collect(const JsonValue* v, SimToolList* list) {
    if (!v) return;
    if (v->type == JV_OBJECT) {
        const JsonValue* name = json_get(v, "name");
        if (name && name->type == JV_STRING && name->str[0]) {
            const JsonValue* schema = parameters_of(v);
            const JsonValue* props = json_get(schema, "properties");
            const char* first = props && props->type == JV_OBJECT && props->n ? props->keys[0] : NULL;
            StrBuf text;
            sb_init(&text);
            if (schema == v) {
                sb_append(&text, "{\"type\": \"object\", \"properties\": ");
                json_append_value(&text, props);
                sb_append_char(&text, '}');
            } else if (schema) {
                json_append_value(&text, schema);
            }
            add_tool(list, name->str, first, schema ? sb_cstr(&text) : NULL);
            sb_free(&text);
            return;
        }
    }
    if (v->type == JV_OBJECT || v->type == JV_ARRAY) {
        for (size_t i = 0; i < v->n; i++) collect(v->items[i], list);
    }
}

int sim_tools_parse(const char* tools_json, SimToolList* out, char* err, size_t errlen) {
    memset(out, 0, sizeof(*out));
    if (!tools_json || !tools_json[0]) return 0;
    JsonValue* root = json_parse(tools_json, err, errlen);
    if (!root) return -1;
    collect(root, out);
    json_free(root);
    return 0;
}

void sim_tools_copy(const SimToolList* src, SimToolList* dst) {
    memset(dst, 0, sizeof(*dst));
    for (size_t i = 0; i < src->n; i++) {
        add_tool(dst, src->items[i].name, src->items[i].first_property, src->items[i].parameters);
    }
}

void sim_tools_free(SimToolList* list) {
    for (size_t i = 0; i < list->n; i++) {
        free(list->items[i].name);
        free(list->items[i].first_property);
        free(list->items[i].parameters);
    }
    free(list->items);
    memset(list, 0, sizeof(*list));
}

const SimTool* sim_tools_find_mentioned(const SimToolList* list, const char* text) {
    if (!text) return NULL;
    for (size_t i = 0; i < list->n; i++) {
        if (strstr(text, list->items[i].name)) return &list->items[i];
    }
    return NULL;
}

char* sim_tools_render_system(const char* system_prompt, const char* tools_json) {
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "<|im_start|>system\n");
    if (system_prompt && system_prompt[0]) {
        sb_append(&sb, system_prompt);
        if (tools_json && tools_json[0]) sb_append(&sb, "\n\n");
    }
    if (tools_json && tools_json[0]) {
        sb_append(&sb,
                  "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
                  "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n");
        sb_append(&sb, tools_json);
        sb_append(&sb,
                  "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
                  "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
                  "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>");
    }
    sb_append(&sb, "<|im_end|>\n");
    return sb_steal(&sb);
}
