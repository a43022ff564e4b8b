/* Process-wide NPU memory accounting: see npu_memory.h. */
#include "npu_memory.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double used_mb;
static int used_handles;

int sim_npu_memory_reserve(double mb, double budget_mb, double* in_use, int* handles) {
    pthread_mutex_lock(&lock);
    *in_use = used_mb;
    *handles = used_handles;
    int fits = budget_mb <= 0 || used_mb + mb <= budget_mb;
    if (fits) {
        used_mb += mb;
        used_handles++;
    }
    pthread_mutex_unlock(&lock);
    return fits ? 0 : -1;
}

void sim_npu_memory_release(double mb) {
    pthread_mutex_lock(&lock);
    used_mb -= mb;
    used_handles--;
    if (used_handles == 0) used_mb = 0; /* no drift from float sums */
    pthread_mutex_unlock(&lock);
}
