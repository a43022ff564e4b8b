/*
 * Shared basics of the simulated runtime: the symbol-visibility macro (only the rkllm_* API is
 * exported; every internal function is marked SIM_HIDDEN or static) and the ABI constants.
 */
#ifndef RKLLM_SIM_COMMON_H
#define RKLLM_SIM_COMMON_H

#include "rkllm.h"

#define SIM_HIDDEN __attribute__((visibility("hidden")))

#if RKLLM_ABI_MINOR == 2
#define SIM_ABI_NAME "1.2"
#elif RKLLM_ABI_MINOR == 3
#define SIM_ABI_NAME "1.3"
#else
#error "RKLLM_ABI_MINOR must be 2 or 3"
#endif

/* The runtime version this build impersonates ("1.2.3" or "1.3.0"); see version.c. */
SIM_HIDDEN const char* sim_runtime_version(void);
/* "rkllm-runtime version: " (stored right before the version string). */
SIM_HIDDEN const char* sim_runtime_version_label(void);

#endif
