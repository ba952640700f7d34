// Threaded attention for a decode step's few query rows: flash-decoding
// (Dao et al., "Flash-Decoding for long-context inference", 2023). With
// fewer (batch, query row) items than threads, each row's keys are split
// into chunks, one per work item; each item runs the SIMD family's
// attend_heads over its chunk (every head, the cache read in place) into
// its own partial (outputs, max, sum); the partials of a row are then
// merged by their log-sum-exp: M = max_c m_c, out = sum_c e^(m_c - M) o_c /
// sum_c e^(m_c - M) l_c. With as many rows as threads, one chunk per row.
#include <math.h>
#include <stdlib.h>

#include "omp_family.h"
#include "../isa/huge.h"

// Keys a chunk holds at least: below this a thread's share is too short to
// pay for its merge (and for waking the thread).
enum { MIN_CHUNK_KEYS = 256 };

typedef struct {
    const xf_simd_kernels *k;
    int threads, chunks, items;
    float *o, *ml;   // per item: outputs (heads,dk); max and sum (2 heads)
    float **scores;  // per thread: heads x (keys of a chunk)
} decode_ctx;

void xf_omp_decode_attention_release(void *ctx)
{
    decode_ctx *c = ctx;
    if (!c) return;
    for (int t = 0; c->scores && t < c->threads; t++) free(c->scores[t]);
    free(c->scores), free(c->o), free(c->ml);
    free(c);
}

int xf_omp_decode_attention_prepare(const void *args, void **ctx)
{
    const xf_attention_args *a = args;
    decode_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->k = xf_simd_widest_kernels();
    c->threads = xf_team_threads();
    const int rows = a->batch * a->seq_q;
    c->chunks = 1;
    if (rows < c->threads) {
        c->chunks = (c->threads + rows - 1) / rows;
        const int most = (a->seq_k + MIN_CHUNK_KEYS - 1) / MIN_CHUNK_KEYS;
        if (c->chunks > most) c->chunks = most > 0 ? most : 1;
    }
    c->items = rows * c->chunks;
    const size_t chunk_keys = (size_t)(a->seq_k + c->chunks - 1) / c->chunks;
    c->o = xf_alloc_lines((size_t)c->items * a->heads * a->dk * sizeof(float) + 64);
    c->ml = malloc((size_t)c->items * 2 * a->heads * sizeof(float) + 64);
    c->scores = calloc((size_t)c->threads, sizeof *c->scores);
    int ok = c->o && c->ml && c->scores;
    for (int t = 0; ok && t < c->threads; t++)
        ok = (c->scores[t] = xf_alloc_lines((size_t)a->heads * chunk_keys * sizeof(float) + 64)) != NULL;
    if (!ok) {
        xf_omp_decode_attention_release(c);
        return -1;
    }
    *ctx = c;
    return 0;
}

// q is (B,Sq,H*dk), k and v are cache rows (B,kv_rows,...) with row strides;
// out (B,Sq,H*dk)
void xf_omp_decode_attention_run(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    const decode_ctx *c = ctx;
    const int H = a->heads, dk = a->dk, chunks = c->chunks;
    const int chunk_keys = (a->seq_k + chunks - 1) / chunks;
#pragma omp parallel num_threads(c->threads)
    {
#pragma omp for schedule(static)
        for (int it = 0; it < c->items; it++) {
            const int row = it / chunks, ch = it % chunks;
            const int j0 = ch * chunk_keys, j1 = j0 + chunk_keys < a->seq_k ? j0 + chunk_keys : a->seq_k;
            float *ml = c->ml + (size_t)it * 2 * H;
            c->k->attend_heads(a, row / a->seq_q, row % a->seq_q, j0, j1 > j0 ? j1 : j0,
                               c->scores[xf_team_thread()], c->o + (size_t)it * H * dk, ml, ml + H);
        }
        // (the barrier after the loop publishes every partial)
#pragma omp for schedule(static)
        for (int row = 0; row < a->batch * a->seq_q; row++) {
            float *o = c->o + (size_t)row * chunks * H * dk, *ml = c->ml + (size_t)row * chunks * 2 * H;
            for (int h = 0; h < H; h++) { // merge chunks 1.. into chunk 0
                float m = ml[h];
                for (int ch = 1; ch < chunks; ch++)
                    if (ml[(size_t)ch * 2 * H + h] > m) m = ml[(size_t)ch * 2 * H + h];
                if (m == -INFINITY) { // no visible key in any chunk: the row is zeros
                    ml[H + h] = 0.0f;
                    continue;
                }
                float l = 0.0f;
                for (int ch = 0; ch < chunks; ch++) {
                    const float mc = ml[(size_t)ch * 2 * H + h];
                    const float f = mc == -INFINITY ? 0.0f : expf(mc - m);
                    float *oc = o + ((size_t)ch * H + h) * dk;
                    l += f * ml[(size_t)ch * 2 * H + H + h];
                    if (ch == 0)
                        for (int d = 0; d < dk; d++) oc[d] *= f;
                    else
                        for (int d = 0; d < dk; d++) o[(size_t)h * dk + d] += f * oc[d];
                }
                ml[H + h] = l;
            }
            c->k->attend_finish(a, row / a->seq_q, row % a->seq_q, o, ml + H);
        }
    }
}
