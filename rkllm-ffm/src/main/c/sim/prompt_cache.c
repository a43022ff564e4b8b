/* Simulated prompt-cache files. */
#include "prompt_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_prompt_cache_save(const char* path, int tokens, int system_tokens, const char* text, char* err,
                          size_t errlen) {
    FILE* f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot write prompt cache %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "%s\ntokens: %d\nsystem_tokens: %d\ntext: ", SIM_PROMPT_CACHE_MAGIC, tokens, system_tokens);
    for (const char* p = text ? text : ""; *p; p++) {
        switch (*p) {
            case '\n': fputs("\\n", f); break;
            case '\t': fputs("\\t", f); break;
            case '\r': fputs("\\r", f); break;
            case '\\': fputs("\\\\", f); break;
            default: fputc(*p, f);
        }
    }
    fputc('\n', f);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write prompt cache %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int sim_prompt_cache_load(const char* path, int* tokens, int* system_tokens, char* err, size_t errlen) {
    FILE* f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        snprintf(err, errlen, "cannot open prompt cache %s: %s", path ? path : "(null)", path ? strerror(errno) : "no path");
        return -1;
    }
    char line[256];
    int ok = fgets(line, sizeof line, f) && strncmp(line, SIM_PROMPT_CACHE_MAGIC, strlen(SIM_PROMPT_CACHE_MAGIC)) == 0;
    ok = ok && fgets(line, sizeof line, f) && sscanf(line, "tokens: %d", tokens) == 1 && *tokens >= 0;
    ok = ok && fgets(line, sizeof line, f) && sscanf(line, "system_tokens: %d", system_tokens) == 1;
    fclose(f);
    if (!ok) {
        snprintf(err, errlen, "%s is not a simulated prompt cache file", path);
        return -1;
    }
    return 0;
}
