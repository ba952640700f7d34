// Threaded linear, BLIS-style: each thread runs the SIMD GEMM's loops (k
// slices, row blocks, L2-sized column blocks of B, the micro-kernel) over
// its own share of the work, split along the dimension with more units:
// the rows of A in whole MR-row panels at every Transformer shape (M =
// batch x seq), the B panels (64 or 16 columns) when M is a few rows (of
// 32 columns for avx512's few-row tile at 5 to 8 rows). A
// thread so writes its own part of C and never waits for another inside
// a run. Rows rather than panels, 2 threads, seq 2048, ten interleaved
// rounds against oneDNN (median ratio): QKV 0.99 -> 1.01, FFN1 0.985 ->
// 1.00, FFN2 1.01 -> 1.00 (both threads share B from L3 and each its C
// rows; split by panels they shared A). Per-thread tiles that each packed
// their own rows of A cost about 10% at 96 x 256 tiles.
#include <stdlib.h>
#include <string.h>

#include "../isa/huge.h"
#include "omp_family.h"

typedef struct {
    const xf_simd_kernels *k;
    float *bp, *bias;
    int threads, dot, few; // dot: W as given, for linear_rows; few: W packed for gemm_few
} linear_ctx;

void xf_omp_linear_release(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp), free(l->bias);
    free(l);
}

int xf_omp_linear_prepare(const void *args, void **ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    l->k = xf_simd_widest_kernels();
    l->threads = xf_team_threads();
    if (a->m <= XF_DOT_ROWS) { // a decode step at batch 1: weights copied as they are into huge pages
        l->dot = 1;
        if (!(l->bp = xf_alloc_huge((size_t)a->n * a->k * sizeof(float)))) {
            xf_omp_linear_release(l);
            return -1;
        }
        memcpy(l->bp, a->w, (size_t)a->n * a->k * sizeof(float));
        *ctx = l;
        return 0;
    }
    const size_t panels = (size_t)(a->n + l->k->gemm_nr - 1) / l->k->gemm_nr;
    l->few = l->k->gemm_few_rows(a->m, a->k);
    l->bp = xf_alloc_huge(l->k->linear_packed_floats(a->m, a->n, a->k) * sizeof(float) + 64); // as the SIMD linear's
    if (a->b) l->bias = calloc(panels * l->k->gemm_nr, sizeof(float));
    if (!l->bp || (a->b && !l->bias)) {
        xf_omp_linear_release(l);
        return -1;
    }
    l->k->linear_pack(a->m, a->w, a->n, a->k, l->bp);
    if (a->b) memcpy(l->bias, a->b, (size_t)a->n * sizeof(float));
    *ctx = l;
    return 0;
}

// x is (m,k), y is (m,n)
void xf_omp_linear_run(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    const linear_ctx *l = ctx;
    const xf_simd_kernels *k = l->k;
    if (l->dot) {
        // Each thread its share of the output columns (16 at a time):
        // every weight row is read by one thread only, once.
        xf_linear_args in_place = *a;
        in_place.w = l->bp;
#pragma omp parallel num_threads(l->threads)
        {
            int ja, jz;
            xf_team_columns(a->n, 16, xf_team_thread(), xf_team_size(), &ja, &jz);
            if (ja < jz) k->linear_rows(&in_place, ja, jz);
        }
        return;
    }
    if (l->few) {
        // Each thread its share of the panels: every weight panel read once.
        const int panels = (a->n + k->gemm_few_nr - 1) / k->gemm_few_nr;
#pragma omp parallel num_threads(l->threads)
        {
            int pa, pz;
            xf_team_share(panels, xf_team_thread(), xf_team_size(), &pa, &pz);
            if (pa < pz) k->gemm_few(a->m, a->n, a->k, a->x, l->bp, l->bias, a->relu, a->y, pa, pz);
        }
        return;
    }
    if (a->k == 0) {
        k->gemm_k0(a->m, a->n, l->bias, a->relu, a->y, a->n);
        return;
    }
    const int panels = (a->n + k->gemm_nr - 1) / k->gemm_nr;
#pragma omp parallel num_threads(l->threads)
    {
        int ra, rz, pa, pz; // this thread's rows and B panels
        xf_team_gemm_part(a->m, k->gemm_mr, panels, xf_team_thread(), xf_team_size(), &ra, &rz, &pa, &pz);
        if (ra < rz && pa < pz)
            k->gemm_part(a->n, a->k, a->x, a->k, l->bp, l->bias, a->relu, a->y, a->n, ra, rz, pa, pz);
    }
}
