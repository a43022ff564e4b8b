/* A growable NUL-terminated byte string, and NULL-safe string helpers. Allocation failure aborts. */
#ifndef RKLLM_SIM_STRBUF_H
#define RKLLM_SIM_STRBUF_H

#include <stddef.h>
#include "common.h"

typedef struct {
    char* data; /* always NUL-terminated once anything was appended; NULL when empty and fresh */
    size_t len;
    size_t cap;
} StrBuf;

SIM_HIDDEN void sb_init(StrBuf* sb);
SIM_HIDDEN void sb_free(StrBuf* sb);
SIM_HIDDEN void sb_clear(StrBuf* sb);
SIM_HIDDEN void sb_append_n(StrBuf* sb, const char* s, size_t n);
SIM_HIDDEN void sb_append(StrBuf* sb, const char* s); /* NULL appends nothing */
SIM_HIDDEN void sb_append_char(StrBuf* sb, char c);
SIM_HIDDEN void sb_insert(StrBuf* sb, size_t at, const char* s); /* s put before byte `at` (the end at most) */
SIM_HIDDEN void sb_printf(StrBuf* sb, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
SIM_HIDDEN const char* sb_cstr(const StrBuf* sb); /* "" when empty */
SIM_HIDDEN char* sb_steal(StrBuf* sb);            /* malloc'd copy owned by the caller; sb is reset */

SIM_HIDDEN void* sim_xmalloc(size_t n);
SIM_HIDDEN void* sim_xcalloc(size_t n, size_t size);
SIM_HIDDEN void* sim_xrealloc(void* p, size_t n);
SIM_HIDDEN char* sim_strdup(const char* s); /* NULL -> NULL */
SIM_HIDDEN char* sim_strndup(const char* s, size_t n);

#endif
