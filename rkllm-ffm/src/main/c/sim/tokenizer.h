/*
 * The simulated tokenizer: one deterministic rule used for every text the runtime counts (system
 * prompt, template parts, prompt, generated text). The rule is documented in
 * docs/simulated-runtime.md ("Tokenizer"); keep the two in sync.
 */
#ifndef RKLLM_SIM_TOKENIZER_H
#define RKLLM_SIM_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"

/* Letters/digits per token in an ASCII letter/digit run. */
#define SIM_TOKEN_RUN_CHARS 5
/* Longest "<|...|>" special token recognised as a single token, in bytes. */
#define SIM_TOKEN_SPECIAL_MAX 32

/* Called once per token with its byte range [start, end). */
typedef void (*SimTokenFn)(void* userdata, size_t start, size_t end);

/* Splits s[0..len) into tokens, calling fn (may be NULL) for each; returns the token count. */
SIM_HIDDEN int sim_tokenize(const char* s, size_t len, SimTokenFn fn, void* userdata);
/* Token count of a NUL-terminated string; NULL counts 0. */
SIM_HIDDEN int sim_count_tokens(const char* s);
/* Token boundaries of s[0..len): returns n, *bounds gets n+1 malloc'd offsets (0 ... len). */
SIM_HIDDEN int sim_token_bounds(const char* s, size_t len, size_t** bounds);

/* Length of the (valid) UTF-8 sequence at s[i]; 1 for ASCII and for any invalid/truncated byte. */
SIM_HIDDEN size_t sim_utf8_seq_len(const char* s, size_t len, size_t i);
/* 1 if offset `pos` of s[0..len) is a code point boundary (0 and len are boundaries). */
SIM_HIDDEN int sim_utf8_is_boundary(const char* s, size_t len, size_t pos);
/* Largest n <= max such that s[0..n) ends on a code point boundary. */
SIM_HIDDEN size_t sim_utf8_clip(const char* s, size_t len, size_t max);

/* A deterministic token id for a token's bytes (FNV-1a folded into a Qwen-sized vocabulary). */
SIM_HIDDEN int32_t sim_token_id(const char* s, size_t len);
/* 64-bit FNV-1a, chainable: pass the previous hash as seed (or SIM_FNV_SEED). */
#define SIM_FNV_SEED 0xcbf29ce484222325ULL
SIM_HIDDEN uint64_t sim_fnv1a(uint64_t seed, const void* data, size_t len);

#endif
