/*
 * Simulated prompt-cache files (written by a run with save_prompt_cache=1, read by
 * rkllm_load_prompt_cache). A small text file:
 *   #rkllm-sim-prompt-cache 1
 *   tokens: <KV cache tokens after the prefill>
 *   system_tokens: <tokens of the cached system part, -1 if the system part is not cached>
 *   text: <the text prefilled by that run, with \n \t \r \\ escaped>
 */
#ifndef RKLLM_SIM_PROMPT_CACHE_H
#define RKLLM_SIM_PROMPT_CACHE_H

#include <stddef.h>
#include "common.h"

#define SIM_PROMPT_CACHE_MAGIC "#rkllm-sim-prompt-cache 1"

/* Returns 0, or -1 with a message in err. */
SIM_HIDDEN int sim_prompt_cache_save(const char* path, int tokens, int system_tokens, const char* text, char* err,
                                     size_t errlen);
/* Returns 0 and fills the counts, or -1 with a message in err (missing or malformed file). */
SIM_HIDDEN int sim_prompt_cache_load(const char* path, int* tokens, int* system_tokens, char* err, size_t errlen);

#endif
