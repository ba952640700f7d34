// Threaded embedding: the SIMD family's PE table (built in its prepare),
// tokens in static chunks of an L1 of rows (every token costs the same:
// variants/isa/blocking.c).
#include <stdlib.h>

#include "omp_family.h"

typedef struct {
    const xf_simd_kernels *k;
    void *simd_ctx;
    int threads;
} embed_ctx;

int xf_omp_embed_prepare(const void *args, void **ctx)
{
    embed_ctx *e = calloc(1, sizeof *e);
    if (!e) return -1;
    e->k = xf_simd_widest_kernels();
    e->threads = xf_team_threads();
    if (e->k->embed_prepare(args, &e->simd_ctx) != 0) return free(e), -1;
    *ctx = e;
    return 0;
}

void xf_omp_embed_release(void *ctx)
{
    embed_ctx *e = ctx;
    if (e) e->k->embed_release(e->simd_ctx);
    free(e);
}

// ids is (batch,seq), table is (vocab,d), y is (batch,seq,d)
void xf_omp_embed_run(const void *args, void *ctx)
{
    const xf_embed_args *a = args;
    const embed_ctx *e = ctx;
    const float *pe = e->k->embed_pe(e->simd_ctx);
    const int tokens = a->batch * a->seq, chunk = xf_chunk_rows((size_t)a->d_model * sizeof(float));
    const int stream = xf_stream_output(2 * (size_t)tokens * a->d_model * sizeof(float)); // rows read, y written
#pragma omp parallel for schedule(static) num_threads(e->threads)
    for (int r0 = 0; r0 < tokens; r0 += chunk)
        e->k->embed_rows(a, pe, r0, r0 + chunk < tokens ? r0 + chunk : tokens, stream);
}
