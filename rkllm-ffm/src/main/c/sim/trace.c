/* The inspection trace writer. */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void sim_trace_open(SimTrace* t, const char* path, int handle_id) {
    t->fd = -1;
    t->handle_id = handle_id;
    if (!path) return;
    t->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (t->fd < 0) fprintf(stderr, "W rkllm-sim: cannot open trace file %s: %s\n", path, strerror(errno));
}

void sim_trace_close(SimTrace* t) {
    if (t->fd >= 0) close(t->fd);
    t->fd = -1;
}

int sim_trace_on(const SimTrace* t) {
    return t->fd >= 0;
}

void sim_trace_begin(const SimTrace* t, JsonWriter* w, StrBuf* sb, const char* call) {
    sb_init(sb);
    jw_begin(w, sb);
    jw_str(w, "call", call);
    jw_int(w, "handle", t->handle_id);
}

void sim_trace_emit(const SimTrace* t, JsonWriter* w, StrBuf* sb) {
    jw_end(w);
    sb_append_char(sb, '\n');
    if (t->fd < 0) return;
    const char* p = sb->data;
    size_t left = sb->len;
    while (left > 0) {
        ssize_t n = write(t->fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "W rkllm-sim: trace write failed: %s\n", strerror(errno));
            break;
        }
        p += n;
        left -= (size_t)n;
    }
}

static int handle_counter;

int sim_next_handle_id(void) {
    return __atomic_add_fetch(&handle_counter, 1, __ATOMIC_SEQ_CST);
}

static int live_handles;

int sim_live_handles_add(int delta) {
    return __atomic_add_fetch(&live_handles, delta, __ATOMIC_SEQ_CST);
}
