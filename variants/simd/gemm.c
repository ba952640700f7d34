// Blocked GEMM around the family's micro-kernel (BLIS's five loops, less
// the N loop: B is packed whole, in prepare when it is a weight):
//   for each KC slice of k: for each MC block of rows (A read in place, a
//   ragged last MR panel packed), for each NR panel of B, for each MR
//   panel of A: micro-kernel.
// KC = 512: one slice covers d_model 512, so C is written once. MC (rows
// of the A block, per family in vec.h) keeps that block and the B
// micro-panel it meets (512 x NR floats) together in the 1 MiB L2 of Zen 4.
// Measured on this machine (linear at seq 512, QKV/FFN1/FFN2): KC 256/384
// slower or within noise; MC 96 rows best for avx512's 6 x 64 tile (A 192
// KiB + B panel 128 KiB), 192 for avx2's 6 x 16; the other loop order
// (A panel reused across all of B) within noise.
#include <stdlib.h>
#include <string.h>

#include "simd.h"

enum { KC = 512, MC = XF_GEMM_MR * (XF_GEMM_MC / XF_GEMM_MR) };
int XF_FN(gemm_kc)(void) { return KC; }

static int panels(int n, int width) { return (n + width - 1) / width; }

size_t XF_FN(packed_b_floats)(int n, int k) { return (size_t)panels(n, XF_GEMM_NR) * k * XF_GEMM_NR; }
size_t XF_FN(gemm_scratch_floats)(void) { return (size_t)MC * KC; }

// w is (n,k), row stride ldw; bp is [panels][k][NR].
void XF_FN(pack_b_nk)(const float *w, int ldw, int n, int k, float *bp)
{
    for (int p = 0; p < panels(n, XF_GEMM_NR); p++)
        for (int kk = 0; kk < k; kk++) {
            float *dst = bp + ((size_t)p * k + kk) * XF_GEMM_NR;
            for (int j = 0; j < XF_GEMM_NR; j++) {
                int col = p * XF_GEMM_NR + j;
                dst[j] = col < n ? w[(size_t)col * ldw + kk] : 0.0f;
            }
        }
}

// v is (k,n), row stride ldv; bp is [panels][k][NR].
void XF_FN(pack_b_kn)(const float *v, int ldv, int k, int n, float *bp)
{
    for (int p = 0; p < panels(n, XF_GEMM_NR); p++) {
        int width = n - p * XF_GEMM_NR < XF_GEMM_NR ? n - p * XF_GEMM_NR : XF_GEMM_NR;
        for (int kk = 0; kk < k; kk++) {
            float *dst = bp + ((size_t)p * k + kk) * XF_GEMM_NR;
            memcpy(dst, v + (size_t)kk * ldv + (size_t)p * XF_GEMM_NR, (size_t)width * sizeof(float));
            for (int j = width; j < XF_GEMM_NR; j++) dst[j] = 0.0f;
        }
    }
}

// a block of mc rows and kc columns -> [panels][kc][MR], zero rows past mc
// (the GEMM's ragged last panel; the fused attention's Q blocks). Whole
// panels take a branch-free path over MR row pointers.
void XF_FN(pack_a)(const float *a, int lda, int mc, int kc, float *ap)
{
    for (int p = 0; p < panels(mc, XF_GEMM_MR); p++) {
        const float *rows[XF_GEMM_MR];
        for (int i = 0; i < XF_GEMM_MR; i++) // rows past mc are never read: any valid pointer
            rows[i] = a + (size_t)(p * XF_GEMM_MR + i < mc ? p * XF_GEMM_MR + i : 0) * lda;
        if ((p + 1) * XF_GEMM_MR <= mc) {
            for (int kk = 0; kk < kc; kk++, ap += XF_GEMM_MR)
                for (int i = 0; i < XF_GEMM_MR; i++) ap[i] = rows[i][kk];
            continue;
        }
        for (int kk = 0; kk < kc; kk++)
            for (int i = 0; i < XF_GEMM_MR; i++) *ap++ = p * XF_GEMM_MR + i < mc ? rows[i][kk] : 0.0f;
    }
}

// An edge tile goes through a full-size tile on the stack. A is packed
// [kc][MR] (lda 0) or MR rows of stride lda.
static void edge_tile(int kc, const float *a, long lda, const float *bp, float *c, int ldc, int rows,
                      int cols, int init, const float *bias, int relu)
{
    float t[XF_GEMM_MR * XF_GEMM_NR];
    if (!init)
        for (int i = 0; i < rows; i++) memcpy(t + i * XF_GEMM_NR, c + (size_t)i * ldc, (size_t)cols * sizeof(float));
    if (lda)
        XF_FN(gemm_ukernel_lda)(kc, a, lda, bp, t, XF_GEMM_NR, init, bias, relu);
    else
        XF_FN(gemm_ukernel)(kc, a, bp, t, XF_GEMM_NR, init, bias, relu);
    for (int i = 0; i < rows; i++) memcpy(c + (size_t)i * ldc, t + i * XF_GEMM_NR, (size_t)cols * sizeof(float));
}

// One block of A against B panels p0..p1: c (mc rows, panels from p0) +=
// or = the block (mc,kc) times the panels' rows k0..k0+kc. Whole MR-row
// panels of A are read in place (a, row stride lda: no packing, which cost
// up to 10% where N is small, e.g. FFN2's 512 columns); the ragged last
// panel, if any, comes packed in ap_tail. first: C starts from the bias (or
// 0), not from C; last: apply ReLU.
void XF_FN(gemm_block)(int mc, int n, int kc, const float *a, int lda, const float *ap_tail,
                       const float *bp, int k, int k0, int p0, int p1, const float *bias, int relu,
                       int first, int last, float *c, int ldc)
{
    for (int p = p0; p < p1; p++) {
        const float *b = bp + ((size_t)p * k + k0) * XF_GEMM_NR;
        const float *bb = first && bias ? bias + (size_t)p * XF_GEMM_NR : NULL;
        const int cols = n - p * XF_GEMM_NR < XF_GEMM_NR ? n - p * XF_GEMM_NR : XF_GEMM_NR;
        for (int q = 0; q * XF_GEMM_MR < mc; q++) {
            const int rows = mc - q * XF_GEMM_MR < XF_GEMM_MR ? mc - q * XF_GEMM_MR : XF_GEMM_MR;
            float *cc = c + (size_t)q * XF_GEMM_MR * ldc + (size_t)p * XF_GEMM_NR;
            const float *aq = a + (size_t)q * XF_GEMM_MR * lda;
            if (rows == XF_GEMM_MR && cols == XF_GEMM_NR)
                XF_FN(gemm_ukernel_lda)(kc, aq, lda, b, cc, ldc, first, bb, relu && last);
            else if (rows == XF_GEMM_MR)
                edge_tile(kc, aq, lda, b, cc, ldc, rows, cols, first, bb, relu && last);
            else
                edge_tile(kc, ap_tail, 0, b, cc, ldc, rows, cols, first, bb, relu && last);
        }
    }
}

// C with no products: the bias (or 0), then ReLU.
void XF_FN(gemm_k0)(int m, int n, const float *bias, int relu, float *c, int ldc)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float v = bias ? bias[j] : 0.0f;
            c[(size_t)i * ldc + j] = relu && v < 0.0f ? 0.0f : v;
        }
}

// c is (m,n), a is (m,k), bp packed from B (k,n)
void XF_FN(gemm)(int m, int n, int k, const float *a, int lda, const float *bp,
                 const float *bias, int relu, float *c, int ldc, float *scratch)
{
    if (k == 0) {
        XF_FN(gemm_k0)(m, n, bias, relu, c, ldc);
        return;
    }
    for (int k0 = 0; k0 < k; k0 += KC) {
        const int kc = k - k0 < KC ? k - k0 : KC;
        for (int m0 = 0; m0 < m; m0 += MC) {
            const int mc = m - m0 < MC ? m - m0 : MC;
            const int whole = mc / XF_GEMM_MR * XF_GEMM_MR; // rows read in place
            if (whole < mc) XF_FN(pack_a)(a + (size_t)(m0 + whole) * lda + k0, lda, mc - whole, kc, scratch);
            XF_FN(gemm_block)(mc, n, kc, a + (size_t)m0 * lda + k0, lda, scratch, bp, k, k0, 0,
                              panels(n, XF_GEMM_NR), bias, relu, k0 == 0, k0 + kc == k, c + (size_t)m0 * ldc, ldc);
        }
    }
}

// linear: the weight is packed (and the bias padded to whole panels) once,
// in prepare; run packs A blocks as it goes.
typedef struct {
    float *bp, *bias, *scratch;
} linear_ctx;

int XF_FN(linear_prepare)(const void *args, void **ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    size_t padded = (size_t)panels(a->n, XF_GEMM_NR) * XF_GEMM_NR;
    l->bp = aligned_alloc(64, (XF_FN(packed_b_floats)(a->n, a->k) * sizeof(float) + 63) / 64 * 64 + 64);
    l->scratch = aligned_alloc(64, XF_FN(gemm_scratch_floats)() * sizeof(float));
    if (a->b) l->bias = calloc(padded, sizeof(float));
    if (!l->bp || !l->scratch || (a->b && !l->bias)) {
        XF_FN(linear_release)(l);
        return -1;
    }
    XF_FN(pack_b_nk)(a->w, a->k, a->n, a->k, l->bp);
    if (a->b) memcpy(l->bias, a->b, (size_t)a->n * sizeof(float));
    *ctx = l;
    return 0;
}

// x is (m,k), y is (m,n)
void XF_FN(linear_run)(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = ctx;
    XF_FN(gemm)(a->m, a->n, a->k, a->x, a->k, l->bp, l->bias, a->relu, a->y, a->n, l->scratch);
}

void XF_FN(linear_release)(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp);
    free(l->bias);
    free(l->scratch);
    free(l);
}
