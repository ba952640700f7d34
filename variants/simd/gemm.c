// Blocked GEMM around the family's micro-kernel, BLIS's loops with B packed
// whole (in prepare when it is a weight), outermost first:
//   k slices of at most kc (xf_gemm_kc): C is read and written once per
//   slice;
//   row blocks of at most MC rows: the A block (mc x kc) kept in L3;
//   column blocks of NB panels of B: the B block (kc x NB*NR) kept in L2;
//   each MR-row panel of A (read in place, the ragged last one too, by a
//   kernel with that many rows) against each panel of the B block: the
//   micro-kernel.
// The sizes come from this CPU's caches (variants/isa/blocking.c): the B
// block is half the L2, reused by every A panel of the row block; the k
// slice the longest whose one B panel fits that block; the A block a
// quarter of the core's L3 share.
// On Zen 4, measured in-process interleaved against the order before this
// one (96-row A blocks against every B panel, KC 512), as a fraction of
// the FMA loop's median at M = 512: QKV 0.932 -> 0.950, FFN1 0.933 ->
// 0.954, FFN2 0.935 -> 0.964. The B stream is what mattered: a B panel
// streamed from L3 instead of L2 cost the micro-kernel 5-10% (0.87-0.92
// against 0.97 of the FMA loop).
#include <stdlib.h>
#include <string.h>

#include "../isa/blocking.h"
#include "../isa/huge.h"
#include "simd.h"

// Panels of B in a column block, rows of A in a row block (a multiple of
// MR, so only the last block can have a ragged panel), for a k slice kc.
static int block_panels(int kc)
{
    const int nb = (int)(xf_blocking_get()->gemm_b_block / ((size_t)kc * XF_GEMM_NR * sizeof(float)));
    return nb > 1 ? nb : 1;
}

static int block_rows(int kc)
{
    const size_t rows = xf_blocking_get()->gemm_a_block / ((size_t)kc * sizeof(float));
    const int mc = rows < (1u << 30) ? (int)rows / XF_GEMM_MR * XF_GEMM_MR : (1 << 30) / XF_GEMM_MR * XF_GEMM_MR;
    return mc > XF_GEMM_MR ? mc : XF_GEMM_MR;
}

static int panels(int n, int width) { return (n + width - 1) / width; }

size_t XF_FN(packed_b_floats)(int n, int k) { return (size_t)panels(n, XF_GEMM_NR) * k * XF_GEMM_NR; }

// w is (n,k), row stride ldw; bp is [panels][k][NR].
// Eight rows of 8 floats (rows r of stride ld at src) written as eight
// columns: dst[c * ldd + r] = src[r * ld + c]. AVX2's 256-bit shuffles,
// which the avx512 family has too.
static void transpose_8x8(const float *src, size_t ld, float *dst, size_t ldd)
{
    __m256 r[8], t[8];
    for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(src + i * ld);
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4)
        for (int j = 0; j < 2; j++) {
            r[i + j] = _mm256_shuffle_ps(t[i + j], t[i + j + 2], _MM_SHUFFLE(1, 0, 1, 0));
            r[i + j + 2] = _mm256_shuffle_ps(t[i + j], t[i + j + 2], _MM_SHUFFLE(3, 2, 3, 2));
        }
    // r[0..3] hold columns 0, 4 / 2, 6 / 1, 5 / 3, 7 of rows 0-3 (lanes
    // 0-3 and 4-7), r[4..7] the same of rows 4-7.
    static const int col[4] = {0, 2, 1, 3};
    for (int i = 0; i < 4; i++) {
        _mm256_storeu_ps(dst + col[i] * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
        _mm256_storeu_ps(dst + (col[i] + 4) * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
    }
}

// bp is [panels][k][width], width a multiple of 8.
static void pack_nk(const float *w, int ldw, int n, int k, float *bp, int width)
{
    for (int p = 0; p < panels(n, width); p++) {
        float *panel = bp + (size_t)p * k * width;
        int kk = 0;
        // Whole panels by 8 x 8 blocks: element by element, the packing of
        // K cost the fused attention 3-5% of its time at seq 512.
        if ((p + 1) * width <= n)
            for (; kk + 8 <= k; kk += 8)
                for (int j = 0; j < width; j += 8)
                    transpose_8x8(w + (size_t)(p * width + j) * ldw + kk, (size_t)ldw, panel + (size_t)kk * width + j,
                                  width);
        for (; kk < k; kk++) // the ragged panel, or the last k % 8
            for (int j = 0; j < width; j++) {
                const int col = p * width + j;
                panel[(size_t)kk * width + j] = col < n ? w[(size_t)col * ldw + kk] : 0.0f;
            }
    }
}

void XF_FN(pack_b_nk)(const float *w, int ldw, int n, int k, float *bp) { pack_nk(w, ldw, n, k, bp, XF_GEMM_NR); }

// v is (k,n), row stride ldv; bp is [panels][k][NR].
void XF_FN(pack_b_kn)(const float *v, int ldv, int k, int n, float *bp)
{
    for (int p = 0; p < panels(n, XF_GEMM_NR); p++) {
        int width = n - p * XF_GEMM_NR < XF_GEMM_NR ? n - p * XF_GEMM_NR : XF_GEMM_NR;
        const float *src = v + (size_t)p * XF_GEMM_NR;
        float *dst = bp + (size_t)p * k * XF_GEMM_NR;
        if (width == XF_GEMM_NR) { // whole vectors: a memcpy call per 64 bytes cost 3% of the fused attention
            for (int kk = 0; kk < k; kk++, src += ldv, dst += XF_GEMM_NR)
                for (int j = 0; j < XF_GEMM_NR; j += XV_W) xv_store(dst + j, xv_load(src + j));
            continue;
        }
        for (int kk = 0; kk < k; kk++, src += ldv, dst += XF_GEMM_NR) {
            memcpy(dst, src, (size_t)width * sizeof(float));
            for (int j = width; j < XF_GEMM_NR; j++) dst[j] = 0.0f;
        }
    }
}

void XF_FN(gemm_tile)(int kc, const float *a, long lda, const float *pf, const float *b, float *c, int ldc,
                      int rows, int init, const float *bias, int relu)
{
    static xf_ukernel_lda_fn *const ragged[XF_GEMM_MR] = {
        NULL, XF_FN(gemm_ukernel_lda1), XF_FN(gemm_ukernel_lda2), XF_FN(gemm_ukernel_lda3),
        XF_FN(gemm_ukernel_lda4), XF_FN(gemm_ukernel_lda5)};
    if (rows == XF_GEMM_MR)
        XF_FN(gemm_ukernel_lda)(kc, a, lda, pf, b, c, ldc, init, bias, relu);
    else
        ragged[rows](kc, a, lda, b, c, ldc, init, bias, relu);
}

// A tile of fewer than NR columns goes through a full-width tile on the
// stack.
static void narrow_tile(int kc, const float *a, long lda, const float *bp, float *c, int ldc, int rows,
                        int cols, int init, const float *bias, int relu)
{
    float t[XF_GEMM_MR * XF_GEMM_NR];
    if (!init)
        for (int i = 0; i < rows; i++) memcpy(t + i * XF_GEMM_NR, c + (size_t)i * ldc, (size_t)cols * sizeof(float));
    XF_FN(gemm_tile)(kc, a, lda, a, bp, t, XF_GEMM_NR, rows, init, bias, relu);
    for (int i = 0; i < rows; i++) memcpy(c + (size_t)i * ldc, t + i * XF_GEMM_NR, (size_t)cols * sizeof(float));
}

// One block of A against B panels p0..p1: c (mc rows, panels from p0) +=
// or = the block (mc,kc) times the panels' rows k0..k0+kc. A is read in
// place (row stride lda): packing it cost up to 10% where N is small (FFN2's
// 512 columns leave few panels to spread it over), and a ragged last panel
// packed and padded to MR rows cost up to a whole panel of FMAs. The first
// tile of each A panel prefetches the next panel into L1: without it the
// first pass over a block waited on A from L3 (M = 2048, QKV and FFN1,
// as a fraction of the FMA loop in-process: avx512 0.92 -> 0.94, avx2 0.89
// -> 0.91-0.93; FFN2 and M = 512 within +-1%). first: C starts from the
// bias (or 0), not from C; last: apply ReLU.
static void gemm_block(int mc, int n, int kc, const float *a, int lda, const float *bp, int k, int k0, int p0,
                       int p1, const float *bias, int relu, int first, int last, float *c, int ldc)
{
    for (int q = 0; q * XF_GEMM_MR < mc; q++) {
        const int rows = mc - q * XF_GEMM_MR < XF_GEMM_MR ? mc - q * XF_GEMM_MR : XF_GEMM_MR;
        const float *aq = a + (size_t)q * XF_GEMM_MR * lda;
        const float *next = (q + 2) * XF_GEMM_MR <= mc ? aq + (size_t)XF_GEMM_MR * lda : aq;
        for (int p = p0; p < p1; p++) {
            const float *b = bp + ((size_t)p * k + k0) * XF_GEMM_NR;
            const float *bb = first && bias ? bias + (size_t)p * XF_GEMM_NR : NULL;
            const int cols = n - p * XF_GEMM_NR < XF_GEMM_NR ? n - p * XF_GEMM_NR : XF_GEMM_NR;
            float *cc = c + (size_t)q * XF_GEMM_MR * ldc + (size_t)p * XF_GEMM_NR;
            if (cols == XF_GEMM_NR)
                XF_FN(gemm_tile)(kc, aq, lda, p == p0 ? next : aq, b, cc, ldc, rows, first, bb, relu && last);
            else
                narrow_tile(kc, aq, lda, b, cc, ldc, rows, cols, first, bb, relu && last);
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

// Rows r0..r1 (r0 a multiple of MR) and B panels p0..p1 of C: the loops
// of the header comment over that part. k > 0.
void XF_FN(gemm_part)(int n, int k, const float *a, int lda, const float *bp, const float *bias, int relu,
                      float *c, int ldc, int r0, int r1, int p0, int p1)
{
    // Slices of equal length (multiples of 8) no longer than the B block
    // allows: k 2051 with a 2048 limit is 1032 + 1019, not 2048 and a 3.
    const int kc_limit = xf_gemm_kc(XF_GEMM_NR), slices = (k + kc_limit - 1) / kc_limit;
    const int kc_max = ((k + slices - 1) / slices + 7) / 8 * 8;
    for (int k0 = 0; k0 < k; k0 += kc_max) {
        const int kc = k - k0 < kc_max ? k - k0 : kc_max, mc_max = block_rows(kc), nb = block_panels(kc);
        for (int m0 = r0; m0 < r1; m0 += mc_max) {
            const int mc = r1 - m0 < mc_max ? r1 - m0 : mc_max;
            for (int pb = p0; pb < p1; pb += nb)
                gemm_block(mc, n, kc, a + (size_t)m0 * lda + k0, lda, bp, k, k0, pb, pb + nb < p1 ? pb + nb : p1, bias,
                           relu, k0 == 0, k0 + kc == k, c + (size_t)m0 * ldc, ldc);
        }
    }
}

// c is (m,n), a is (m,k), bp packed from B (k,n)
void XF_FN(gemm)(int m, int n, int k, const float *a, int lda, const float *bp,
                 const float *bias, int relu, float *c, int ldc)
{
    if (k == 0)
        XF_FN(gemm_k0)(m, n, bias, relu, c, ldc);
    else
        XF_FN(gemm_part)(n, k, a, lda, bp, bias, relu, c, ldc, 0, m, 0, panels(n, XF_GEMM_NR));
}

// Few rows: a GEMM of 5 to XF_GEMM_FEW_MR rows (a decode step at batch 5
// to 8) with B packed in panels of XF_GEMM_FEW_NR columns, [panel][k][NR],
// and every row of A against each panel in one micro-kernel call over the
// whole k, so each weight byte is read once, from DRAM, while the FMAs
// run, where the 6-row micro-kernel streamed a panel and a ragged one read
// it again from L2 with DRAM idle. Zen 4, 1 thread, a 128 MiB weight (n
// 65536, k 512) from DRAM, ms per call, the two paths alternating: at 5
// rows level (4.55-5.19 against 4.63-4.74: the 5-row ragged kernel read
// each panel once already), 6 rows 5.48-5.69 -> 5.15-5.24, 7 rows 7.0-8.4
// -> 5.3-6.1, 8 rows 7.0-8.3 -> 5.7-6.2 (docs/performance.md, "Decoding
// at batch 2 to 8"). 2 to 4 rows stream at the DRAM roof through the
// ragged kernels. Where vec.h has no few-row tile (avx2), no call takes it.
int XF_FN(gemm_few_rows)(int m, int k)
{
#ifdef XF_UK_FEW_COLS
    return k > 0 && m >= 5 && m <= XF_GEMM_FEW_MR;
#else
    (void)m, (void)k;
    return 0;
#endif
}

// The panel width of a linear's packed weight: the few-row tile's, or the
// GEMM's.
static int linear_width(int m, int k)
{
#ifdef XF_UK_FEW_COLS
    if (XF_FN(gemm_few_rows)(m, k)) return XF_GEMM_FEW_NR;
#else
    (void)m, (void)k;
#endif
    return XF_GEMM_NR;
}

size_t XF_FN(linear_packed_floats)(int m, int n, int k)
{
    const int width = linear_width(m, k);
    return (size_t)panels(n, width) * k * width;
}

void XF_FN(linear_pack)(int m, const float *w, int n, int k, float *bp) { pack_nk(w, k, n, k, bp, linear_width(m, k)); }

#ifdef XF_UK_FEW_COLS
// c's panels p0..p1 (of XF_GEMM_FEW_NR columns) = a (m,k) times bp (+ bias,
// padded to whole panels; ReLU); gemm_few_rows(m, k).
void XF_FN(gemm_few)(int m, int n, int k, const float *a, const float *bp, const float *bias, int relu, float *c,
                     int p0, int p1)
{
    static xf_ukernel_lda_fn *const few[XF_GEMM_FEW_MR + 1] = {
        [5] = XF_FN(gemm_ukernel_few5), [6] = XF_FN(gemm_ukernel_few6), [7] = XF_FN(gemm_ukernel_few7),
        [8] = XF_FN(gemm_ukernel_few8)};
    for (int p = p0; p < p1; p++) {
        const float *b = bp + (size_t)p * k * XF_GEMM_FEW_NR, *bb = bias ? bias + (size_t)p * XF_GEMM_FEW_NR : NULL;
        const int cols = n - p * XF_GEMM_FEW_NR < XF_GEMM_FEW_NR ? n - p * XF_GEMM_FEW_NR : XF_GEMM_FEW_NR;
        if (cols == XF_GEMM_FEW_NR) {
            few[m](k, a, k, b, c + (size_t)p * XF_GEMM_FEW_NR, n, 1, bb, relu);
            continue;
        }
        float t[XF_GEMM_FEW_MR * XF_GEMM_FEW_NR]; // the ragged last panel through a full-width tile
        few[m](k, a, k, b, t, XF_GEMM_FEW_NR, 1, bb, relu);
        float *cp = c + (size_t)p * XF_GEMM_FEW_NR;
        for (int i = 0; i < m; i++) memcpy(cp + (size_t)i * n, t + i * XF_GEMM_FEW_NR, (size_t)cols * sizeof(float));
    }
}
#endif

// linear: the weight is packed (and the bias padded to whole panels) once,
// in prepare; for a decode step's one row it is copied as it is into huge
// pages (isa/huge.h), where decode.c streams it.
typedef struct {
    float *bp, *bias;
    int dot, few; // dot: W as given, for linear_rows; few: W packed for gemm_few
} linear_ctx;

int XF_FN(linear_prepare)(const void *args, void **ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    if (a->m <= XF_DOT_ROWS) {
        l->dot = 1;
        if (!(l->bp = xf_alloc_huge((size_t)a->n * a->k * sizeof(float)))) {
            XF_FN(linear_release)(l);
            return -1;
        }
        memcpy(l->bp, a->w, (size_t)a->n * a->k * sizeof(float));
        *ctx = l;
        return 0;
    }
    size_t padded = (size_t)panels(a->n, XF_GEMM_NR) * XF_GEMM_NR;
    l->few = XF_FN(gemm_few_rows)(a->m, a->k);
    // in huge pages: a GEMM of few rows (a decode step at batch 2 to 8)
    // streams the packed weight from DRAM once per call
    l->bp = xf_alloc_huge(XF_FN(linear_packed_floats)(a->m, a->n, a->k) * sizeof(float) + 64);
    if (a->b) l->bias = calloc(padded, sizeof(float));
    if (!l->bp || (a->b && !l->bias)) {
        XF_FN(linear_release)(l);
        return -1;
    }
    XF_FN(linear_pack)(a->m, a->w, a->n, a->k, l->bp);
    if (a->b) memcpy(l->bias, a->b, (size_t)a->n * sizeof(float));
    *ctx = l;
    return 0;
}

// x is (m,k), y is (m,n)
void XF_FN(linear_run)(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = ctx;
    if (l->dot) {
        xf_linear_args in_place = *a;
        in_place.w = l->bp;
        XF_FN(linear_rows)(&in_place, 0, a->n);
    }
#ifdef XF_UK_FEW_COLS
    else if (l->few)
        XF_FN(gemm_few)(a->m, a->n, a->k, a->x, l->bp, l->bias, a->relu, a->y, 0, panels(a->n, XF_GEMM_FEW_NR));
#endif
    else XF_FN(gemm)(a->m, a->n, a->k, a->x, a->k, l->bp, l->bias, a->relu, a->y, a->n);
}

void XF_FN(linear_release)(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp);
    free(l->bias);
    free(l);
}
