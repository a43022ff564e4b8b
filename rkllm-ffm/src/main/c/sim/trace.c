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

int sim_trace_line_start(SimTraceLine* line, const SimTrace* t, const char* call) {
    if (!sim_trace_on(t)) return 0;
    line->trace = t;
    sb_init(&line->sb);
    jw_begin(&line->w, &line->sb);
    jw_str(&line->w, "call", call);
    jw_int(&line->w, "handle", t->handle_id);
    return 1;
}

void sim_trace_line_end(SimTraceLine* line) {
    jw_end(&line->w);
    sb_append_char(&line->sb, '\n');
    const char* p = line->sb.data;
    size_t left = line->sb.len;
    while (left > 0) {
        ssize_t n = write(line->trace->fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "W rkllm-sim: trace write failed: %s\n", strerror(errno));
            break;
        }
        p += n;
        left -= (size_t)n;
    }
    sb_free(&line->sb);
}

static int handle_counter;

int sim_next_handle_id(void) {
    return __atomic_add_fetch(&handle_counter, 1, __ATOMIC_SEQ_CST);
}

static int live_handles;

int sim_live_handles_add(int delta) {
    return __atomic_add_fetch(&live_handles, delta, __ATOMIC_SEQ_CST);
}
