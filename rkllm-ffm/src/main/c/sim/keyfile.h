/*
 * The simulators' text files (simulated .rkllm models, simulated .rknn encoders): a magic first line, then
 * "key: value" lines; numbers in values and in fault specs. Shared by both simulated libraries.
 */
#ifndef RKLLM_SIM_KEYFILE_H
#define RKLLM_SIM_KEYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include "common.h"

/* One key and its value (owned by the callee); 0, or -1 with err set to why the value is bad. */
typedef int (*SimKeyFn)(void* ctx, const char* key, char* value, char* err, size_t errlen);

/*
 * Parses text whose first line must be exactly magic (a trailing '\r' tolerated): blank lines and '#' comments
 * skipped, key and value trimmed, a value in double quotes taken without them, and with unescape the escapes
 * \n \t \r \\ \" resolved. Returns 0; -1 with err "ORIGIN:LINE: ..." for a line without ':' or a value fn refused;
 * -2 (err untouched) when the first line is not magic.
 */
SIM_HIDDEN int sim_keyfile_parse(const char* text, size_t len, const char* magic, const char* origin, bool unescape,
                                 SimKeyFn fn, void* ctx, char* err, size_t errlen);

/* The whole file, NUL-terminated (its length in *len), or NULL with errno set. */
SIM_HIDDEN char* sim_read_file(const char* path, size_t* len);

/* The file name of path without its directory and extension. */
SIM_HIDDEN char* sim_file_stem(const char* path);

/* The whole string as an int / a double: 0, or -1 when it is not one (or out of range). */
SIM_HIDDEN int sim_parse_int(const char* s, int* out);
SIM_HIDDEN int sim_parse_double(const char* s, double* out);

#endif
