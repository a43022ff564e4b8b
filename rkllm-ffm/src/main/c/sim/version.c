/*
 * The runtime version string. It is kept as its own NUL-terminated string in .rodata, right after
 * the (also NUL-terminated) text "rkllm-runtime version: ", and the init log line prints both
 * through "%s" (read through volatile pointers so the compiler cannot fold them into the format):
 * the binding identifies an unknown librkllmrt.so by scanning the file for a standalone "1.N.N"
 * string near "rkllm-runtime version", as it would do with Rockchip's library. No other string of
 * the form 1.N.N may appear in the library.
 */
#include "common.h"

#if RKLLM_ABI_MINOR == 2
#define SIM_VERSION_TEXT "1.2.3"
#else
#define SIM_VERSION_TEXT "1.3.0"
#endif

/* One object, so the two strings are contiguous in the file. */
static const struct {
    char log_label[sizeof "rkllm-runtime version: "];
    char version[sizeof SIM_VERSION_TEXT];
} VERSION_BLOCK = {"rkllm-runtime version: ", SIM_VERSION_TEXT};

static const char* volatile runtime_version_ref = VERSION_BLOCK.version;
static const char* volatile runtime_label_ref = VERSION_BLOCK.log_label;

const char* sim_runtime_version(void) {
    return runtime_version_ref;
}

const char* sim_runtime_version_label(void) {
    return runtime_label_ref;
}
