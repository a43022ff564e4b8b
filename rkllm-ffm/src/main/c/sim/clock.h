/* Monotonic time and sleeping. */
#ifndef RKLLM_SIM_CLOCK_H
#define RKLLM_SIM_CLOCK_H

#include <time.h>
#include "common.h"

SIM_HIDDEN double sim_now_ms(void);
/* Sleeps ms milliseconds (not interruptible); <= 0 returns at once. */
SIM_HIDDEN void sim_sleep_ms(double ms);
/* The CLOCK_MONOTONIC time ms milliseconds from now. */
SIM_HIDDEN struct timespec sim_deadline(double ms);

#endif
