/* The newest turn of a prompt: see turns.h. */
#include "turns.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* The turn markers a server writes when it flattens a conversation into one prompt, each at the start of a
 * paragraph (rkllm-server's PromptFlattener, and the "User:"/"Assistant:" transcripts of other servers). */
static const char* const MARKERS[] = {"User: ", "Assistant: ", "Tool result: ", "System: "};
enum { M_USER, M_ASSISTANT, M_TOOL_RESULT, M_SYSTEM, M_NONE };

/* The marker that starts the paragraph at p, or M_NONE. */
static int marker_at(const char* prompt, const char* p) {
    if (p != prompt && (p - prompt < 2 || p[-1] != '\n' || p[-2] != '\n')) return M_NONE;
    for (int m = 0; m < M_NONE; m++) {
        if (strncmp(p, MARKERS[m], strlen(MARKERS[m])) == 0) return m;
    }
    return M_NONE;
}

/* The start of the next paragraph after p (after the next run of two or more newlines: a turn whose text ends with
 * a newline is followed by three), or the end of the text. */
static const char* next_paragraph(const char* p) {
    const char* q = strstr(p, "\n\n");
    if (!q) return p + strlen(p);
    while (*q == '\n') q++;
    return q;
}

/* Appends text[from, to) without its System: paragraphs (a note runs to the end of its paragraph, or to the next
 * marker in a flattened prompt), trimmed of the blank lines around what is left. */
static void append_without_system(StrBuf* out, const char* prompt, const char* from, const char* to, int flattened) {
    const char* p = from;
    while (p < to) {
        const char* next = next_paragraph(p);
        if (next > to) next = to;
        if (marker_at(prompt, p) == M_SYSTEM) {
            /* in a flattened prompt the note is a whole turn: up to the next marker */
            while (flattened && next < to && marker_at(prompt, next) == M_NONE) {
                const char* after = next_paragraph(next);
                next = after > to ? to : after;
            }
        } else {
            sb_append_n(out, p, (size_t)(next - p));
        }
        p = next;
    }
    while (out->len && (out->data[out->len - 1] == '\n' || out->data[out->len - 1] == ' ')) out->len--;
    out->data[out->len] = '\0';
}

void sim_newest_turn(const char* prompt, SimTurn* out) {
    StrBuf text;
    sb_init(&text);
    sb_append(&text, "");
    out->kind = SIM_TURN_USER;
    if (!prompt) {
        out->text = sb_steal(&text);
        return;
    }
    /* the last paragraph that starts a user, assistant or tool-result turn */
    const char* last = NULL;
    int kind = M_NONE;
    for (const char* p = prompt; *p; p = next_paragraph(p)) {
        int m = marker_at(prompt, p);
        if (m != M_NONE && m != M_SYSTEM) last = p, kind = m;
    }
    if (!last) {
        /* a plain prompt, or new messages sent on top of a cached conversation, system notes among them */
        append_without_system(&text, prompt, prompt, prompt + strlen(prompt), 0);
    } else {
        out->kind = kind == M_USER ? SIM_TURN_USER : kind == M_ASSISTANT ? SIM_TURN_ASSISTANT : SIM_TURN_TOOL_RESULT;
        const char* body = last + strlen(MARKERS[kind]);
        append_without_system(&text, prompt, body, body + strlen(body), 1);
    }
    out->text = sb_steal(&text);
}

void sim_turn_free(SimTurn* turn) {
    free(turn->text);
    turn->text = NULL;
}
