// libxsmm linear: y (m,n) = x (m,k) W^T + b. In libxsmm's column-major
// terms y^T (n x m) = W^T (n x k) x^T (k x m); libxsmm takes no transposed
// A, so W (n,k) is packed as W^T in prepare, as tiles of BM features, each
// (k,BM) row-major. (Read in place, W^T's rows of n floats would put the
// 64 rows of a k block n * 4 bytes apart, a multiple of 2 KiB at these
// shapes, on a few L1 sets.) Every BM x BN tile of y and kc-deep k slice
// is one batch-reduce kernel call over k in blocks of BK (xf_xsmm_plan);
// bias and ReLU are added on the tile after its last slice, while it is in
// L1, by our loop: libxsmm 1.17's eltwise (meltw) kernels would be one more
// call per tile for two vector ops.
#include <stdlib.h>

#include "xsmm.h"

typedef struct {
    xf_xsmm_plan plan;
    float *wt; // wt is [n/64 tiles][k][64], zero past n
} linear_ctx;

void xf_xsmm_linear_release(void *ctx)
{
    linear_ctx *l = ctx;
    if (l) free(l->wt);
    free(l);
}

int xf_xsmm_linear_prepare(const void *args, void **ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    const size_t tiles = (size_t)(a->n + XF_XSMM_BM - 1) / XF_XSMM_BM, tile = (size_t)XF_XSMM_BM * a->k;
    l->wt = calloc(tiles * tile + 16, sizeof(float));
    if (!l->wt || xf_xsmm_plan_make(&l->plan, a->n, a->m, a->k, XF_XSMM_BM, tile, a->k, a->n) != 0) {
        xf_xsmm_linear_release(l);
        return -1;
    }
    for (int i = 0; i < a->n; i++)
        for (int kk = 0; kk < a->k; kk++)
            l->wt[(size_t)(i / XF_XSMM_BM) * tile + (size_t)kk * XF_XSMM_BM + i % XF_XSMM_BM] = a->w[(size_t)i * a->k + kk];
    *ctx = l;
    return 0;
}

// Adds the bias to tile (features i0.., tokens j0..) of y and applies ReLU.
static void epilogue(const xf_linear_args *a, int i0, int j0)
{
    const int rows = a->m - j0 < XF_XSMM_BN ? a->m - j0 : XF_XSMM_BN;
    const int cols = a->n - i0 < XF_XSMM_BM ? a->n - i0 : XF_XSMM_BM;
    for (int r = 0; r < rows; r++) {
        float *y = a->y + (size_t)(j0 + r) * a->n + i0;
        for (int c = 0; c < cols; c++) {
            float v = y[c] + (a->b ? a->b[i0 + c] : 0.0f);
            y[c] = a->relu && v < 0.0f ? 0.0f : v;
        }
    }
}

// x is (m,k), y is (m,n)
void xf_xsmm_linear_run(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    const linear_ctx *l = ctx;
    // The tokens loop innermost: one slice of W^T (BM features x kc, 80
    // KiB on Zen 4) stays in L2 for all the token tiles it meets.
    const int slices = xf_xsmm_plan_slices(&l->plan);
    for (int s = 0; s < slices; s++)
        for (int i0 = 0; i0 < a->n; i0 += XF_XSMM_BM)
            for (int j0 = 0; j0 < a->m; j0 += XF_XSMM_BN) {
                xf_xsmm_plan_tile(&l->plan, l->wt, a->x, a->y, i0, j0, s);
                if ((a->b || a->relu) && s == slices - 1) epilogue(a, i0, j0);
            }
}
