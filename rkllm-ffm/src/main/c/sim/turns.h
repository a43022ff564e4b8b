/*
 * The newest turn of a prompt, as a model reads a conversation: what it answers is decided by the last thing said to
 * it, not by names in earlier turns or in system notes. Rules in docs/simulated-runtime.md ("Output", "The newest
 * turn").
 */
#ifndef RKLLM_SIM_TURNS_H
#define RKLLM_SIM_TURNS_H

#include "common.h"

typedef enum {
    SIM_TURN_USER = 0,        /* the user's text: a plain prompt, or the text after the last "User: " */
    SIM_TURN_ASSISTANT = 1,   /* a flattened prompt that ends with an "Assistant: " turn */
    SIM_TURN_TOOL_RESULT = 2  /* a flattened prompt that ends with a "Tool result: " turn */
} SimTurnKind;

typedef struct {
    SimTurnKind kind;
    char* text; /* the turn's text without its marker and without "System: " paragraphs (malloc'd) */
} SimTurn;

/* The newest turn of a prompt text (see the header comment); NULL is an empty user turn. Free with sim_turn_free. */
SIM_HIDDEN void sim_newest_turn(const char* prompt, SimTurn* out);
SIM_HIDDEN void sim_turn_free(SimTurn* turn);

#endif
