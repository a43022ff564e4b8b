/*
 * Function tools given to rkllm_set_function_tools: the tool names and parameter schemas found in the
 * tools JSON (for the simulated tool-call answer) and the system part that renders them.
 */
#ifndef RKLLM_SIM_TOOLS_H
#define RKLLM_SIM_TOOLS_H

#include <stddef.h>
#include "common.h"

typedef struct {
    char* name;
    char* first_property; /* first key of the tool's parameters' "properties", or NULL */
    char* parameters;     /* the tool's parameters schema as JSON text, or NULL */
} SimTool;

typedef struct {
    SimTool* items;
    size_t n;
} SimToolList;

/* Extracts the tools of a tools JSON text. Returns 0, or -1 with err when the JSON is invalid. */
SIM_HIDDEN int sim_tools_parse(const char* tools_json, SimToolList* out, char* err, size_t errlen);
SIM_HIDDEN void sim_tools_copy(const SimToolList* src, SimToolList* dst);
SIM_HIDDEN void sim_tools_free(SimToolList* list);
/* The tool whose name occurs in text (first in tools order), or NULL. */
SIM_HIDDEN const SimTool* sim_tools_find_mentioned(const SimToolList* list, const char* text);

/* The system part used while tools are set (Qwen style; see docs). malloc'd. */
SIM_HIDDEN char* sim_tools_render_system(const char* system_prompt, const char* tools_json);

#endif
