// Threaded linear, BLIS-style: the team shares each packed A block (MC rows
// of the SIMD GEMM: 96 for avx512, 192 for avx2, by KC = 512 columns) and
// splits the B panels (64 or 16 columns) among the threads: the block is
// packed by the team, panel by panel, then every thread multiplies it into
// its panels. Packing A per thread-private tile instead cost about 10% at
// 96 x 256 tiles (each tile repacks its rows). Each thread keeps the same
// panels for every block (static schedule), so its share of B stays in its
// own L2 across row blocks when it fits.
#include <stdlib.h>
#include <string.h>

#include "omp.h"

typedef struct {
    const xf_simd_kernels *k;
    float *bp, *bias, *ap; // ap: the shared packed A block
    int threads;
} linear_ctx;

void xf_omp_linear_release(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp), free(l->bias), free(l->ap);
    free(l);
}

int xf_omp_linear_prepare(const void *args, void **ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    l->k = xf_omp_kernels();
    l->threads = xf_omp_threads();
    const size_t panels = (size_t)(a->n + l->k->gemm_nr - 1) / l->k->gemm_nr;
    l->bp = aligned_alloc(64, (l->k->packed_b_floats(a->n, a->k) * sizeof(float) + 63) / 64 * 64 + 64);
    if (a->b) l->bias = calloc(panels * l->k->gemm_nr, sizeof(float));
    l->ap = aligned_alloc(64, l->k->gemm_scratch_floats() * sizeof(float));
    if (!l->bp || (a->b && !l->bias) || !l->ap) {
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
    if (a->k == 0) {
        k->gemm_k0(a->m, a->n, l->bias, a->relu, a->y, a->n);
        return;
    }
    const int mc_max = k->gemm_mc, kc_max = k->gemm_kc(), mr = k->gemm_mr;
    const int panels = (a->n + k->gemm_nr - 1) / k->gemm_nr;
#pragma omp parallel num_threads(l->threads)
    for (int k0 = 0; k0 < a->k; k0 += kc_max) {
        const int kc = a->k - k0 < kc_max ? a->k - k0 : kc_max;
        for (int m0 = 0; m0 < a->m; m0 += mc_max) {
            const int mc = a->m - m0 < mc_max ? a->m - m0 : mc_max;
            const int a_panels = (mc + mr - 1) / mr;
            // The barrier after this loop publishes the block; the one
            // after the next keeps it until every thread is done with it.
#pragma omp for schedule(static)
            for (int q = 0; q < a_panels; q++) {
                const int rows = mc - q * mr < mr ? mc - q * mr : mr;
                k->pack_a(a->x + (size_t)(m0 + q * mr) * a->k + k0, a->k, rows, kc,
                          l->ap + (size_t)q * kc * mr);
            }
#pragma omp for schedule(static)
            for (int p = 0; p < panels; p++)
                k->gemm_block(mc, a->n, kc, l->ap, l->bp, a->k, k0, p, p + 1, l->bias, a->relu, k0 == 0,
                              k0 + kc == a->k, a->y + (size_t)m0 * a->n, a->n);
        }
    }
}
