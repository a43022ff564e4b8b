/* Deterministic hidden-state rows: see hidden.h. */
#include "hidden.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "tokenizer.h"

typedef struct {
    SimHiddenStates* out;
    const char* text;
    uint64_t prefix_hash; /* hash of every token so far, the one being added included */
} RowWriter;

/* splitmix64 over the prefix hash: values uniform in [-1, 1). */
static void fill_row(float* row, int embd_size, uint64_t prefix_hash) {
    uint64_t s = prefix_hash;
    for (int j = 0; j < embd_size; j++) {
        uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        row[j] = (float)((double)(z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0);
    }
}

static void add_row(RowWriter* w) {
    SimHiddenStates* hs = w->out;
    fill_row(hs->rows + (size_t)hs->num_tokens * (size_t)hs->embd_size, hs->embd_size, w->prefix_hash);
    hs->num_tokens++;
}

static void on_token(void* userdata, size_t start, size_t end) {
    RowWriter* w = userdata;
    w->prefix_hash = sim_fnv1a(w->prefix_hash, w->text + start, end - start);
    add_row(w);
}

void sim_hidden_states(const char* const* texts, int n_texts, long long extra_tokens, uint64_t context,
                       int embd_size, SimHiddenStates* out) {
    long long total = extra_tokens > 0 ? extra_tokens : 0;
    for (int i = 0; i < n_texts; i++) total += sim_count_tokens(texts[i]);
    memset(out, 0, sizeof(*out));
    out->embd_size = embd_size;
    out->rows = sim_xcalloc((size_t)(total > 0 ? total : 1) * (size_t)embd_size, sizeof(float));
    RowWriter w = {out, NULL, sim_fnv1a(SIM_FNV_SEED, &context, sizeof context)};
    for (int i = 0; i < n_texts; i++) {
        if (!texts[i]) continue;
        w.text = texts[i];
        sim_tokenize(texts[i], strlen(texts[i]), on_token, &w);
    }
    for (long long k = 0; k < extra_tokens; k++) {
        w.prefix_hash = sim_fnv1a(w.prefix_hash, &k, sizeof k);
        add_row(&w);
    }
}

void sim_hidden_states_free(SimHiddenStates* hs) {
    free(hs->rows);
    memset(hs, 0, sizeof(*hs));
}
