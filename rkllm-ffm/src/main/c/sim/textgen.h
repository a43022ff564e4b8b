/*
 * What the simulated model answers (deterministically) and how the answer is cut into tokens /
 * callbacks. Rules documented in docs/simulated-runtime.md ("Output").
 */
#ifndef RKLLM_SIM_TEXTGEN_H
#define RKLLM_SIM_TEXTGEN_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"
#include "strbuf.h"
#include "tools.h"

typedef enum {
    SIM_OUT_SAY = 0,        /* [[say:TEXT]] */
    SIM_OUT_TOKENS = 1,     /* [[tokens:N]] */
    SIM_OUT_TOOL_CALL = 2,  /* the newest user turn mentions a tool */
    SIM_OUT_TOOL_ANSWER = 3,/* role "tool", or a flattened prompt whose newest turn is a tool result */
    SIM_OUT_REPLY = 4,      /* pseudo-text of reply_tokens tokens */
    SIM_OUT_JSON = 5        /* [[json...]]: structured output */
} SimOutputKind;

/* What a [[json:...]] directive asks the model to produce (docs: "Structured output"). */
typedef enum {
    SIM_JSON_VALID = 0,          /* an instance of the schema */
    SIM_JSON_INVALID = 1,        /* valid JSON the schema rejects */
    SIM_JSON_TRAILING_COMMA = 2, /* an instance with a trailing comma */
    SIM_JSON_UNCLOSED = 3,       /* an instance without its last closing brace or bracket */
    SIM_JSON_FENCED = 4,         /* an instance in a ```json code fence */
    SIM_JSON_WRAPPED = 5,        /* an instance with prose before and after it */
    SIM_JSON_PROSE = 6           /* prose, no JSON at all */
} SimJsonOutcome;

typedef struct {
    const char* prompt; /* raw prompt text (NULL for token/embed input) */
    int role_is_user;
    int role_is_tool;
    int think;          /* emit a <think> block first (unless [[say:]]) */
    int reply_tokens;
    uint64_t seed;      /* hash of the prompt and the cache length */
    const SimToolList* tools;
    int min_tokens;     /* fault no_eos: after the answer, the model runs on (EOS marker, new turn, ...) until
                         * the output has at least this many tokens; 0 = the answer ends it */
    int json;           /* a SimJsonOutcome to produce ([[json]], chosen by run.c); -1 none */
    const char* json_context; /* the prompt that carried the [[json]] directive a retry run continues, or NULL */
    const char* system;       /* the system part: where a schema the prompts lack may be */
    int dialect;              /* a SimDialect: how reasoning and tool calls are written */
} SimGenRequest;

typedef struct {
    SimOutputKind kind;
    StrBuf text;    /* the whole answer */
    size_t* bounds; /* n_chunks + 1 offsets into text: chunk i = [bounds[i], bounds[i+1]) */
    int n_chunks;   /* one chunk = one generated token = one callback */
    size_t answer_len; /* bytes of the answer itself; what follows is the run-on of fault no_eos */
} SimOutput;

/* The end-of-turn marker a run-on answer repeats (fault no_eos): the special token the runtime failed to
 * recognise as EOS. */
#define SIM_EOS_MARKER "<|im_end|>"

SIM_HIDDEN void sim_generate(const SimGenRequest* req, SimOutput* out);
SIM_HIDDEN void sim_output_free(SimOutput* out);

/* Finds the LAST [[say:TEXT]] of the prompt; returns the decoded TEXT (malloc'd) or NULL. */
SIM_HIDDEN char* sim_directive_say(const char* prompt);
/* Finds the LAST well-formed [[json]] or [[json:OUTCOME,...]] of the prompt; returns the outcome list ("" for
 * [[json]]), malloc'd, or NULL when there is none. */
SIM_HIDDEN char* sim_directive_json(const char* prompt);
/* The outcome of attempt number `attempt` (from 0) of an outcome list, which repeats from its start when used
 * up; "" means valid. An unknown name gives prose (and a warning on stderr). */
SIM_HIDDEN SimJsonOutcome sim_json_outcome(const char* outcomes, int attempt);
/* The outcome's name in directives and the trace ("valid", "trailing_comma", ...). */
SIM_HIDDEN const char* sim_json_outcome_name(SimJsonOutcome outcome);
/* The number of outcomes in a list (1 for ""). */
SIM_HIDDEN int sim_json_outcome_count(const char* outcomes);
/* 1 when the prompt contains [[error]]: the run fails right after prefill. */
SIM_HIDDEN int sim_directive_error(const char* prompt);
/* Finds the LAST [[tokens:N]] of the prompt; returns N, or -1 when absent. */
SIM_HIDDEN int sim_directive_tokens(const char* prompt);

#endif
