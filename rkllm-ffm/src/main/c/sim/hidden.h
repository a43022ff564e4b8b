/*
 * The simulated last hidden layer (RKLLM_INFER_GET_LAST_HIDDEN_LAYER): one row of embd_size floats per
 * prefilled token, row i a deterministic function of the tokens 0..i (as a causal model's last layer
 * is), so equal inputs give equal rows, different inputs different rows, and both last-token and mean
 * pooling depend on the whole text. Rules documented in docs/simulated-runtime.md ("Hidden states").
 */
#ifndef RKLLM_SIM_HIDDEN_H
#define RKLLM_SIM_HIDDEN_H

#include <stdint.h>
#include "common.h"

typedef struct {
    float* rows; /* num_tokens * embd_size floats, row-major; malloc'd */
    int num_tokens;
    int embd_size;
} SimHiddenStates;

/* The rows for what a run prefilled: the tokens of each of the n_texts texts (each tokenized on its own, as
 * the prefill counts them; NULL texts are skipped), then extra_tokens tokens without text (token, embedding
 * or image input). context mixes in what the KV cache held before the run. */
SIM_HIDDEN void sim_hidden_states(const char* const* texts, int n_texts, long long extra_tokens, uint64_t context,
                                  int embd_size, SimHiddenStates* out);
SIM_HIDDEN void sim_hidden_states_free(SimHiddenStates* hs);

#endif
