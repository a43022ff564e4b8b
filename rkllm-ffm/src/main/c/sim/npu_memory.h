/*
 * The process-wide NPU memory the live handles occupy (the sum of their models' memory_mb), checked
 * against a budget at rkllm_init (model key npu_budget_mb / RKLLM_SIM_NPU_BUDGET_MB).
 */
#ifndef RKLLM_SIM_NPU_MEMORY_H
#define RKLLM_SIM_NPU_MEMORY_H

#include "common.h"

/* Reserves mb for a new handle when in use + mb fits in budget_mb (budget_mb <= 0: no budget, always
 * fits). Returns 0 when reserved, or -1 when it does not fit; *in_use (and *handles) get the
 * memory (and count) of the live handles before this call. */
SIM_HIDDEN int sim_npu_memory_reserve(double mb, double budget_mb, double* in_use, int* handles);
/* Gives back what a destroyed handle (or an init that failed after reserving) held. */
SIM_HIDDEN void sim_npu_memory_release(double mb);

#endif
