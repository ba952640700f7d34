// bf16 linear in an fp32 family's vectors: x, W and y stored in bf16 (half
// the bytes of fp32), the products by the fp32 family's own GEMM
// (variants/simd/gemm.c) in fp32 FMA.
// - More than XF_FEW_ROWS rows: W is packed in prepare into that GEMM's
//   panel layout, [panel][k][NR], in bf16. A call widens x once into fp32
//   rows, then takes W one column block at a time: the block's panels
//   widened into an fp32 block the size of the GEMM's B block (half the
//   L2, variants/isa/blocking.c), every row of x multiplied by it by the
//   fp32 GEMM into an fp32 block of C that stays in L2, that rounded to
//   bf16. Each weight is widened once per call. The widening micro-kernel
//   this replaces (a 6 x 16 tile widening its B row every k step, two
//   instructions per B vector beside the FMAs, on the ports the FMAs use
//   on Intel) widened each weight once per row panel, 86 times at m 512
//   (docs/performance.md, bf16).
// - At most FEW rows (a decode step): W streamed in its own layout, row by
//   row, each weight row widened and dotted with every x row (widened once
//   per call), as the fp32 families' linear_rows (variants/simd/decode.c):
//   half the bytes fp32 weights would be, with a software prefetch ahead
//   in the stream (PF).
#include <stdlib.h>
#include <string.h>

#include "../isa/blocking.h"
#include "../isa/huge.h"
#include "bf16fma.h"

enum { FEW = XF_FEW_ROWS, U = 4 };
// Few rows: how far ahead in the weight stream each 64-byte line is asked
// for, in bf16 (512: 1 KiB, 16 lines). A bf16 line carries twice the
// elements of an fp32 one, so twice the instructions (widening included):
// the out-of-order window then reaches fewer lines ahead than the fp32
// kernel's, and the prefetch makes up for it. Measured on Zen 3 (avx2bf16),
// generate at batch 1 (three interleaved rounds): none 179 tokens/s, 512:
// 190, 1024: 191, 2048: 159 (too far: evicted before use). The fp32 row
// kernel lost 12-17% with the same prefetch (variants/simd/decode.c has
// none).
enum { PF = 512 };

typedef struct {
    xf_bf16 *bp;   // W packed [panel][k][NR], zero past n; few rows: W as given, (n,k)
    float *bias;   // b widened (zero without b), zero past n (whole panels)
    float *xf;     // x widened, (m,k); few rows: (FEW,k)
    float *wblock; // a column block of W widened, [nb][k][NR]
    float *cblock; // c_rows rows of C against that block, fp32, row stride nb NR
    int panels, nb, c_rows, few;
} linear_ctx;

// y[r][j] for the M rows r of x (xf, widened; M <= FEW, a constant where
// it is called, so the M x U accumulators stay in registers) and one weight
// row w (bf16): U independent accumulators per x row cover the FMA latency.
static inline __attribute__((always_inline)) void dot_rows(const int M, const xf_linear_args *a, const float *xf,
                                                           const xf_bf16 *w, float bias, int j)
{
    const int k = a->k;
    xv acc[FEW][U];
    for (int r = 0; r < M; r++)
        for (int u = 0; u < U; u++) acc[r][u] = xv_zero();
    int p = 0;
    for (; p + XV_W * U <= k; p += XV_W * U)
        for (int u = 0; u < U; u++) {
            if (u * XV_W % 32 == 0) _mm_prefetch((const char *)(w + p + u * XV_W + PF), _MM_HINT_T0);
            const xv wv = xv_load_bf16(w + p + XV_W * u);
            for (int r = 0; r < M; r++) acc[r][u] = xv_fma(wv, xv_load(xf + (size_t)r * k + p + XV_W * u), acc[r][u]);
        }
    for (int r = 0; r < M; r++) {
        float tail = 0.0f; // the last k % (U XV_W) terms
        for (int q = p; q < k; q++) tail += xf_bf16_to_f32(w[q]) * xf[(size_t)r * k + q];
        for (int u = 1; u < U; u++) acc[r][0] = xv_add(acc[r][0], acc[r][u]);
        float v = xv_hsum(acc[r][0]) + tail + bias;
        if (a->relu && v < 0.0f) v = 0.0f;
        a->y16[(size_t)r * a->n + j] = xf_bf16_from_f32(v);
    }
}

static void few_rows(const xf_linear_args *a, linear_ctx *l)
{
    xf_bf16_widen_rows(a->x16, (size_t)a->k, a->m, a->k, l->xf, (size_t)a->k);
    const xf_bf16 *w = l->bp;
    switch (a->m) {
    case 1: for (int j = 0; j < a->n; j++) dot_rows(1, a, l->xf, w + (size_t)j * a->k, l->bias[j], j); break;
    case 2: for (int j = 0; j < a->n; j++) dot_rows(2, a, l->xf, w + (size_t)j * a->k, l->bias[j], j); break;
    case 3: for (int j = 0; j < a->n; j++) dot_rows(3, a, l->xf, w + (size_t)j * a->k, l->bias[j], j); break;
    default: for (int j = 0; j < a->n; j++) dot_rows(4, a, l->xf, w + (size_t)j * a->k, l->bias[j], j); break;
    }
}

// x is (m,k) bf16, w (n,k) bf16 (PyTorch's layout), y (m,n) bf16
void XF_BF_FN(linear_run)(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = ctx;
    if (l->few) {
        few_rows(a, l);
        return;
    }
    const size_t k = (size_t)a->k;
    xf_bf16_widen_rows(a->x16, k, a->m, a->k, l->xf, k);
    for (int p0 = 0; p0 < l->panels; p0 += l->nb) {
        const int np = l->panels - p0 < l->nb ? l->panels - p0 : l->nb, col0 = p0 * XF_GEMM_NR;
        const int cols = a->n - col0 < np * XF_GEMM_NR ? a->n - col0 : np * XF_GEMM_NR;
        const xf_bf16 *src = l->bp + (size_t)p0 * k * XF_GEMM_NR;
        for (size_t e = 0; e < (size_t)np * k * XF_GEMM_NR; e += XV_W) xv_store(l->wblock + e, xv_load_bf16(src + e));
        for (int r0 = 0; r0 < a->m; r0 += l->c_rows) {
            const int rows = a->m - r0 < l->c_rows ? a->m - r0 : l->c_rows;
            XF_FN(gemm)(rows, cols, a->k, l->xf + r0 * k, a->k, l->wblock, l->bias + col0, a->relu, l->cblock,
                        np * XF_GEMM_NR);
            xf_bf16_round_rows(l->cblock, (size_t)np * XF_GEMM_NR, rows, cols, a->y16 + (size_t)r0 * a->n + col0,
                               (size_t)a->n);
        }
    }
}

int XF_BF_FN(linear_prepare)(const void *args, void **ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    const size_t k = (size_t)a->k;
    l->panels = (a->n + XF_GEMM_NR - 1) / XF_GEMM_NR;
    l->few = a->m <= FEW;
    const size_t wb = (size_t)l->panels * k * XF_GEMM_NR; // W's elements, packed and padded
    l->bp = xf_alloc_huge(wb * sizeof(xf_bf16) + 64);
    l->bias = calloc((size_t)l->panels * XF_GEMM_NR, sizeof(float));
    // The column block: the panels of fp32 the GEMM's B block holds. The
    // block of C: rows of it that fill a quarter of the L2 beside it.
    const size_t panel_bytes = (k ? k : 1) * XF_GEMM_NR * sizeof(float);
    const size_t nb = xf_blocking_get()->gemm_b_block / panel_bytes;
    l->nb = nb < 1 ? 1 : nb > (size_t)l->panels ? l->panels : (int)nb;
    const size_t c_rows = xf_blocking_get()->gemm_b_block / 2 / ((size_t)l->nb * XF_GEMM_NR * sizeof(float));
    l->c_rows = c_rows < XF_GEMM_MR ? XF_GEMM_MR : c_rows > (size_t)a->m ? a->m : (int)c_rows;
    l->xf = xf_alloc_lines(((l->few ? FEW : (size_t)a->m) * k + 1) * sizeof(float));
    if (!l->few) {
        l->wblock = xf_alloc_lines((size_t)l->nb * k * XF_GEMM_NR * sizeof(float) + 64);
        l->cblock = xf_alloc_lines((size_t)l->c_rows * l->nb * XF_GEMM_NR * sizeof(float));
    }
    if (!l->bp || !l->bias || !l->xf || (!l->few && (!l->wblock || !l->cblock))) {
        XF_BF_FN(linear_release)(l);
        return -1;
    }
    for (int j = 0; a->b16 && j < a->n; j++) l->bias[j] = xf_bf16_to_f32(a->b16[j]);
    if (l->few) { // in huge pages, as given: streamed once per call
        memcpy(l->bp, a->w16, (size_t)a->n * k * sizeof(xf_bf16));
        *ctx = l;
        return 0;
    }
    for (int p = 0; p < l->panels; p++)
        for (size_t kk = 0; kk < k; kk++)
            for (int j = 0; j < XF_GEMM_NR; j++) {
                const int col = p * XF_GEMM_NR + j;
                l->bp[((size_t)p * k + kk) * XF_GEMM_NR + j] = col < a->n ? a->w16[(size_t)col * k + kk] : 0;
            }
    *ctx = l;
    return 0;
}

void XF_BF_FN(linear_release)(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp), free(l->bias), free(l->xf), free(l->wblock), free(l->cblock);
    free(l);
}

// lm_head: the linear with the table as its weight (xf_lm_head_as_linear).
int XF_BF_FN(lm_head_prepare)(const void *args, void **ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    return XF_BF_FN(linear_prepare)(&l, ctx);
}

// x is (rows,d), table is (vocab,d), logits are (rows,vocab), all bf16
void XF_BF_FN(lm_head_run)(const void *args, void *ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    XF_BF_FN(linear_run)(&l, ctx);
}

void XF_BF_FN(lm_head_release)(void *ctx) { XF_BF_FN(linear_release)(ctx); }
