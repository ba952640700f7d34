// Threaded linear, BLIS-style: each thread runs the SIMD GEMM's loops (k
// slices, row blocks, L2-sized column blocks of B, the micro-kernel) over
// its own share of the work, split along the dimension with more units:
// the rows of A in whole MR-row panels at every Transformer shape (M =
// batch x seq), the B panels (64 or 16 columns) when M is a few rows. A
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
    int threads, few_rows;
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
    if (a->m <= XF_FEW_ROWS) { // a decode step: weights copied as they are into huge pages
        l->few_rows = 1;
        if (!(l->bp = xf_alloc_huge((size_t)a->n * a->k * sizeof(float)))) {
            xf_omp_linear_release(l);
            return -1;
        }
        memcpy(l->bp, a->w, (size_t)a->n * a->k * sizeof(float));
        *ctx = l;
        return 0;
    }
    const size_t panels = (size_t)(a->n + l->k->gemm_nr - 1) / l->k->gemm_nr;
    l->bp = xf_alloc_huge(l->k->packed_b_floats(a->n, a->k) * sizeof(float) + 64); // as the SIMD linear's
    if (a->b) l->bias = calloc(panels * l->k->gemm_nr, sizeof(float));
    if (!l->bp || (a->b && !l->bias)) {
        xf_omp_linear_release(l);
        return -1;
    }
    l->k->pack_b_nk(a->w, a->k, a->n, a->k, l->bp);
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
    if (l->few_rows) {
        // Each thread its share of the output columns (16 at a time):
        // every weight row is read by one thread only, once.
        const int units = (a->n + 15) / 16;
        xf_linear_args in_place = *a;
        in_place.w = l->bp;
#pragma omp parallel num_threads(l->threads)
        {
            int ja, jz;
            xf_team_share(units, xf_team_thread(), xf_team_size(), &ja, &jz);
            ja *= 16, jz *= 16;
            if (ja < jz) k->linear_rows(&in_place, ja, jz < a->n ? jz : a->n);
        }
        return;
    }
    if (a->k == 0) {
        k->gemm_k0(a->m, a->n, l->bias, a->relu, a->y, a->n);
        return;
    }
    const int mr = k->gemm_mr;
    const int panels = (a->n + k->gemm_nr - 1) / k->gemm_nr, row_panels = (a->m + mr - 1) / mr;
#pragma omp parallel num_threads(l->threads)
    {
        const int t = xf_team_thread(), nt = xf_team_size();
        int ra = 0, rz = a->m, pa = 0, pz = panels; // this thread's rows and B panels
        if (row_panels >= panels) {
            xf_team_share(row_panels, t, nt, &ra, &rz);
            ra *= mr, rz *= mr;
            rz = rz < a->m ? rz : a->m;
        } else {
            xf_team_share(panels, t, nt, &pa, &pz);
        }
        if (ra < rz && pa < pz)
            k->gemm_part(a->n, a->k, a->x, a->k, l->bp, l->bias, a->relu, a->y, a->n, ra, rz, pa, pz);
    }
}
