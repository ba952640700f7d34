// Threaded linear: the output is cut into tiles of one A block of rows
// (the SIMD GEMM's MC: 96 rows for avx512, 192 for avx2) by TILE_COLS
// columns, handed out dynamically (tiles of the ragged last block row are
// smaller, and dynamic hand-out keeps both cores busy to the end). Each
// tile is one call of the family's GEMM on its rows and its B panels, with
// the thread's own A-packing scratch. 256 columns: B of a tile at K = 512
// is 512 KiB, half of Zen 4's 1 MiB L2, next to the 192 KiB A block; and at
// seq 512 there are 6 x 6 tiles for 2 threads.
#include <stdlib.h>
#include <string.h>

#include "omp.h"

enum { TILE_COLS = 256 }; // a whole number of panels for NR 16 and 64

typedef struct {
    const xf_simd_kernels *k;
    float *bp, *bias;
    xf_omp_buffers scratch;
    int threads;
} linear_ctx;

void xf_omp_linear_release(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp), free(l->bias), free(l->scratch.base);
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
    if (!l->bp || (a->b && !l->bias) ||
        xf_omp_buffers_new(&l->scratch, l->threads, l->k->gemm_scratch_floats()) != 0) {
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
    const int mc = l->k->gemm_mc;
    const int row_blocks = (a->m + mc - 1) / mc, col_blocks = (a->n + TILE_COLS - 1) / TILE_COLS;
#pragma omp parallel for collapse(2) schedule(dynamic) num_threads(l->threads)
    for (int ib = 0; ib < row_blocks; ib++)
        for (int jb = 0; jb < col_blocks; jb++) {
            const int m0 = ib * mc, n0 = jb * TILE_COLS; // n0 is a whole number of panels
            const int rows = a->m - m0 < mc ? a->m - m0 : mc;
            const int cols = a->n - n0 < TILE_COLS ? a->n - n0 : TILE_COLS;
            l->k->gemm(rows, cols, a->k, a->x + (size_t)m0 * a->k, a->k, l->bp + (size_t)n0 * a->k,
                       l->bias ? l->bias + n0 : NULL, a->relu, a->y + (size_t)m0 * a->n + n0, a->n,
                       xf_omp_buffer(&l->scratch, xf_omp_thread()));
        }
}
