/*
 * The inspection trace: one JSON object per line, appended to the configured file for every API
 * call on a handle (format in docs/simulated-runtime.md, "Trace"). Each line is written with a
 * single write(2) on an O_APPEND descriptor, so several handles may share one file.
 */
#ifndef RKLLM_SIM_TRACE_H
#define RKLLM_SIM_TRACE_H

#include "common.h"
#include "json.h"
#include "strbuf.h"

typedef struct {
    int fd; /* -1 = tracing off */
    int handle_id;
} SimTrace;

/* Opens path for appending (NULL path = off). On failure prints a warning and leaves tracing off. */
SIM_HIDDEN void sim_trace_open(SimTrace* t, const char* path, int handle_id);
SIM_HIDDEN void sim_trace_close(SimTrace* t);
SIM_HIDDEN int sim_trace_on(const SimTrace* t);
/* One line being written: sim_trace_line_start, the call's fields on w (nested objects in sb), then
 * sim_trace_line_end. */
typedef struct {
    const SimTrace* trace;
    StrBuf sb;
    JsonWriter w;
} SimTraceLine;

/* Starts {"call":CALL,"handle":ID ... when tracing is on; returns 0, and starts nothing, when it is off. */
SIM_HIDDEN int sim_trace_line_start(SimTraceLine* line, const SimTrace* t, const char* call);
/* Ends the object, writes the line and frees it. */
SIM_HIDDEN void sim_trace_line_end(SimTraceLine* line);

/* Process-wide counter of handle ids (starting at 1), for telling handles apart in a shared trace. */
SIM_HIDDEN int sim_next_handle_id(void);
/* Process-wide count of live handles (fault max_handles): reserve one (returns the count with it) or release one. */
SIM_HIDDEN int sim_live_handles_add(int delta);

#endif
