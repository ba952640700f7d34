// bf16 linear in an fp32 family's vectors: x, W and y stored in bf16 (half
// the bytes of fp32), the products by the fp32 family's own GEMM
// (variants/simd/gemm.c) in fp32 FMA.
// - More than FEW rows: W is packed in prepare into that GEMM's
//   panel layout, [panel][k][NR], in bf16. A call widens x once into fp32
//   rows, then takes W one column block at a time (the GEMM's B block,
//   half the L2, variants/isa/blocking.c): each MR-row panel of x against
//   each of the block's panels by the fp32 micro-kernel, its tile rounded
//   to bf16 into y at once. The first row panel's tiles read the block in
//   bf16 and store it widened for the others: each weight is widened once
//   per call. A widening micro-kernel for every row panel (two
//   instructions per B vector beside the FMAs, on the ports the FMAs use
//   on Intel) widened each weight 86 times at m 512 (docs/performance.md,
//   bf16).
// - At most FEW rows (a decode step): W packed in prepare into pair
//   panels of 2 XV_W columns, [panel][k][XV_W pairs], columns j and
//   j + XV_W of a panel side by side in bf16. A call widens x once, and a
//   tile of up to TILE rows runs each panel over the whole k: per k step
//   one vector load of 2 XV_W weights, widened in registers by a shift and
//   a mask (xv_bf16_pairs_lo, _hi), and 2 FMAs a row against broadcast x.
//   Each weight is read from memory once and widened once per TILE rows,
//   where the GEMM path widened W into an L2 block (written and read
//   again) and the row path it replaces (each weight row dotted with every
//   x row) loaded x beside every weight vector and widened 16 bf16 with a
//   shuffle. Zen 4, 1 thread, a 64 MiB bf16 weight (docs/performance.md,
//   "Decoding in bf16 at batch 1 to 8"): avx512bf16w at 1 / 4 / 8 rows
//   3.0-3.2 / 5.0-5.9 / 10.9-11.4 ms -> 1.9-2.2 / 2.9-3.0 / 5.3-5.4.
#include <stdlib.h>

#include "../isa/blocking.h"
#include "../isa/huge.h"
#include "bf16fma.h"

// Up to FEW rows the pair tile, TILE rows a pass: PW columns a panel.
enum { FEW = 8, PW = 2 * XV_W, TILE = XF_BF16_TILE_MAX };
_Static_assert(XF_GEMM_NR % PW == 0, "the bias, padded to whole GEMM panels, covers whole pair panels");
// How far ahead in a pair panel (bytes) a tile of 2 rows or more asks for
// each 64-byte line of W. Zen 4, 1 thread, 64 MiB of bf16 weights, k 512,
// none / 2 KiB / 4 KiB ahead, ms: avx512bf16w at 2 rows 2.47-2.96 /
// 2.51-2.69 / 2.28-2.51, 4 rows 3.60-3.92 / 3.04 / 2.89-2.99, 8 rows
// 5.85-5.91 / 5.25-5.53 / 5.27-5.42; avx2bf16 at 4 rows 4.06-4.16 /
// 3.27-3.34 / 3.09-3.13, 8 rows 9.41-9.44 / 6.57-6.91 / 6.46-8.18. At one
// row (two FMAs a line) the hardware's prefetch keeps up and the
// instruction only cost: 2.15-2.19 ms without, 2.08-2.57 with.
enum { AHEAD = 4096 };

typedef struct {
    xf_bf16 *bp;   // W packed [panel][k][NR], zero past n; few rows: in pair panels
    float *bias;   // b widened (zero without b), zero past n (whole panels)
    float *xf;     // x widened, (m,k); few rows: (FEW,k)
    float *wblock; // a column block of W widened, [nb][k][NR]
    int panels, nb, few;
} linear_ctx;

// Row r of the pair tile (lo: columns col0.., hi: col0 + XV_W..) plus the
// bias, ReLU'd if relu (as the GEMM's micro-kernel does it), rounded into
// y's row yr (up to n).
static void pair_store(const xf_linear_args *a, xv lo, xv hi, const float *bias, int col0, xf_bf16 *yr)
{
    lo = xv_add(lo, xv_load(bias + col0)), hi = xv_add(hi, xv_load(bias + col0 + XV_W));
    if (a->relu) lo = xv_max(lo, xv_zero()), hi = xv_max(hi, xv_zero());
    float out[PW];
    xv_store(out, lo), xv_store(out + XV_W, hi);
    xf_bf16_round_rows(out, PW, 1, a->n - col0 < PW ? a->n - col0 : PW, yr + col0, 0);
}

// pair_tileM: y[r][col0 + j] for the M rows r of x (xf, widened) and the
// pair panel at bp ([k][XV_W] pairs of bf16: columns j and j + XV_W of the
// panel), per k step one load of 2 XV_W weights widened in registers and
// 2 M FMAs against broadcast x. The accumulators are named variables, as
// in ukernel_body.h: as an array, gcc kept two of avx2's 12 on the stack
// with 3 of the 16 registers free.
#define PT_DECLARE(i) xv lo##i = xv_zero(), hi##i = xv_zero();
#define PT_STEP(i)                                                                                            \
    {                                                                                                         \
        const xv xr = xv_set1(xf[(size_t)(i) * k + kk]);                                                      \
        lo##i = xv_fma(xr, wl, lo##i);                                                                        \
        hi##i = xv_fma(xr, wh, hi##i);                                                                        \
    }
// A vector of pairs at p widened into its halves wl (first of each pair)
// and wh (second).
#define PT_WIDEN(w, wl, wh, p)                                                                                \
    const xv w = xv_load((const float *)(p)), wl = xv_bf16_pairs_lo(w), wh = xv_bf16_pairs_hi(w);
#define PT_STORE(i) pair_store(a, lo##i, hi##i, bias, col0, y + (size_t)(i) * a->n);
#define PAIR_TILE_FN(M)                                                                                       \
    static void pair_tile##M(const xf_linear_args *a, const float *xf, const uint32_t *bp, const float *bias, \
                             int col0, xf_bf16 *y)
#define PAIR_TILE(M, ROWS)                                                                                    \
    PAIR_TILE_FN(M)                                                                                           \
    {                                                                                                         \
        const int k = a->k;                                                                                   \
        ROWS(PT_DECLARE)                                                                                      \
        for (int kk = 0; kk < k; kk++, bp += XV_W) {                                                          \
            if ((M) > 1 && kk % (64 / (2 * PW)) == 0) _mm_prefetch((const char *)bp + AHEAD, _MM_HINT_T0);     \
            PT_WIDEN(w, wl, wh, bp)                                                                           \
            ROWS(PT_STEP)                                                                                     \
        }                                                                                                     \
        ROWS(PT_STORE)                                                                                        \
    }
// pair_tile1 and 2: two k steps an iteration into two sets of
// accumulators, added at the end. With one set, a k step's 2 M FMAs wait
// on the step before (latency 4 cycles): below 4 rows that, not the two
// FMA pipes, paces the loop, one vector of 2 XV_W weights per 4 cycles,
// 28 GB/s for avx2 at 3.5 GHz, below Zen 4's DRAM. Zen 4, 1 thread, 64 MiB
// of bf16 weights, k 512, minima of 4 alternating pairs, ms: avx2bf16 1
// row 2.35-2.46 -> 1.87-2.11, 2 rows 2.49-3.12 -> 2.18-2.34; avx512bf16w
// (64 bytes a step: DRAM paces it) level. 3 rows would need 20 of avx2's
// 16 registers.
#define PT_DECLARE_SPLIT(i) xv lo##i = xv_zero(), hi##i = xv_zero(), lo##i##b = xv_zero(), hi##i##b = xv_zero();
#define PT_STEP_SPLIT(i)                                                                                      \
    {                                                                                                         \
        const xv xr = xv_set1(xf[(size_t)(i) * k + kk]), xs = xv_set1(xf[(size_t)(i) * k + kk + 1]);          \
        lo##i = xv_fma(xr, wl, lo##i);                                                                        \
        hi##i = xv_fma(xr, wh, hi##i);                                                                        \
        lo##i##b = xv_fma(xs, wl2, lo##i##b);                                                                 \
        hi##i##b = xv_fma(xs, wh2, hi##i##b);                                                                 \
    }
#define PT_FOLD(i) lo##i = xv_add(lo##i, lo##i##b), hi##i = xv_add(hi##i, hi##i##b);
#define PAIR_TILE_SPLIT_K(M, ROWS)                                                                            \
    PAIR_TILE_FN(M)                                                                                           \
    {                                                                                                         \
        const int k = a->k;                                                                                   \
        ROWS(PT_DECLARE_SPLIT)                                                                                \
        int kk = 0;                                                                                           \
        for (; kk + 2 <= k; kk += 2, bp += 2 * XV_W) {                                                        \
            for (int line = 0; (M) > 1 && line < 2 * PW * 2; line += 64) /* 2 steps: 1 or 2 lines */        \
                _mm_prefetch((const char *)bp + AHEAD + line, _MM_HINT_T0);                                   \
            PT_WIDEN(w, wl, wh, bp)                                                                           \
            PT_WIDEN(w2, wl2, wh2, bp + XV_W)                                                                 \
            ROWS(PT_STEP_SPLIT)                                                                               \
        }                                                                                                     \
        ROWS(PT_FOLD)                                                                                         \
        if (kk < k) {                                                                                         \
            PT_WIDEN(w, wl, wh, bp)                                                                           \
            ROWS(PT_STEP)                                                                                     \
        }                                                                                                     \
        ROWS(PT_STORE)                                                                                        \
    }
#define R1(X) X(0)
#define R2(X) R1(X) X(1)
#define R3(X) R2(X) X(2)
#define R4(X) R3(X) X(3)
#define R5(X) R4(X) X(4)
#define R6(X) R5(X) X(5)
#define R7(X) R6(X) X(6)
#define R8(X) R7(X) X(7)
PAIR_TILE_SPLIT_K(1, R1)
PAIR_TILE_SPLIT_K(2, R2)
PAIR_TILE(3, R3)
PAIR_TILE(4, R4)
PAIR_TILE(5, R5)
PAIR_TILE(6, R6)
#if XF_BF16_TILE_MAX > 6
PAIR_TILE(7, R7)
PAIR_TILE(8, R8)
#endif
typedef void pair_tile_fn(const xf_linear_args *a, const float *xf, const uint32_t *bp, const float *bias, int col0,
                          xf_bf16 *y);
static pair_tile_fn *const pair_tiles[] = {NULL, pair_tile1, pair_tile2, pair_tile3, pair_tile4, pair_tile5,
                                           pair_tile6,
#if XF_BF16_TILE_MAX > 6
                                           pair_tile7, pair_tile8
#endif
};
_Static_assert(sizeof pair_tiles / sizeof *pair_tiles == TILE + 1, "a pair tile for every count of rows to TILE");

// The pair tile over every panel, in passes of as many rows as can be
// even (at most TILE): avx2's 8 rows as 4 + 4, not 6 + 2, whose 2-row
// pass has 4 accumulators for two FMA pipes of latency 4 (Zen 4, 1
// thread, 64 MiB of bf16 weights: 10.9-11.0 -> 9.1-9.4 ms, before the
// prefetch).
static void pair_rows(const xf_linear_args *a, linear_ctx *l)
{
    xf_bf16_widen_rows(a->x16, (size_t)a->k, a->m, a->k, l->xf, (size_t)a->k);
    const uint32_t *bp = (const uint32_t *)l->bp;
    const int passes = (a->m + TILE - 1) / TILE, rows = (a->m + passes - 1) / passes;
    for (int col0 = 0; col0 < a->n; col0 += PW, bp += (size_t)a->k * XV_W)
        for (int r0 = 0; r0 < a->m; r0 += rows)
            pair_tiles[a->m - r0 < rows ? a->m - r0 : rows](a, l->xf + (size_t)r0 * a->k, bp, l->bias, col0,
                                                           a->y16 + (size_t)r0 * a->n);
}

// The tile of x's first row panel against a panel of W in bf16: the fp32
// family's micro-kernel, each row of B widened as it is read and stored
// widened into the column block for the row panels after it
// (ukernel_body.h, XF_UK_B_BF16).
#define XF_UK_B_BF16
#define XF_UK_NAME XF_BF_FN(gemm_widen_tile)
#define XF_UK_A(i) a[(i) * lda]
#define XF_UK_A_STEP 1
#define XF_UK_PREFETCH(k)
#define XF_UK_LDA_ARG long lda,
#include "../simd/ukernel_body.h"
#undef XF_UK_B_BF16
#undef XF_UK_NAME
#undef XF_UK_A
#undef XF_UK_A_STEP
#undef XF_UK_PREFETCH
#undef XF_UK_LDA_ARG

// More than FEW rows: W a column block of nb panels at a time, x (widened)
// an MR-row panel at a time against each panel of the block by the fp32
// family's micro-kernel into an fp32 tile in L1, rounded into y at once
// (y's lines of the tile asked for before its FMAs, so the rounded stores
// find them). The first row panel's tiles widen the block as they read it.
// This replaced a pass widening each column block before the GEMM and a C
// block of a quarter of the L2 rounded after it; skipping that widening
// altogether (the block left stale after the check) was 3% faster. Zen 4,
// 1 thread, seq 512, minima of 4 alternating pairs of processes, ms:
// avx512bf16w QKV 7.28-7.52 -> 7.10-7.25 (fp32 avx2's 7.11-7.18), FFN1
// 9.80-10.48 -> 9.61-9.98, FFN2 level; avx2bf16 level at all three.
static void gemm_rows(const xf_linear_args *a, linear_ctx *l)
{
    _Alignas(64) float tile[XF_GEMM_MR * XF_GEMM_NR];
    const size_t k = (size_t)a->k;
    xf_bf16_widen_rows(a->x16, k, a->m, a->k, l->xf, k);
    for (int p0 = 0; p0 < l->panels; p0 += l->nb) {
        const int np = l->panels - p0 < l->nb ? l->panels - p0 : l->nb;
        for (int r0 = 0; r0 < a->m; r0 += XF_GEMM_MR) {
            const int rows = a->m - r0 < XF_GEMM_MR ? a->m - r0 : XF_GEMM_MR;
            const float *xr = l->xf + (size_t)r0 * k;
            const float *next = r0 + 2 * XF_GEMM_MR <= a->m ? xr + XF_GEMM_MR * k : xr;
            for (int p = 0; p < np; p++) {
                const int col0 = (p0 + p) * XF_GEMM_NR, cols = a->n - col0 < XF_GEMM_NR ? a->n - col0 : XF_GEMM_NR;
                xf_bf16 *yt = a->y16 + (size_t)r0 * a->n + col0;
                for (int r = 0; r < rows; r++)
                    for (int j = 0; j < cols; j += 32) // a 64-byte line of y
                        _mm_prefetch((const char *)(yt + (size_t)r * a->n + j), _MM_HINT_T0);
                float *wp = l->wblock + (size_t)p * k * XF_GEMM_NR;
                if (r0 == 0) // m > FEW >= MR: the first row panel is whole
                    XF_BF_FN(gemm_widen_tile)(a->k, xr, a->k, l->bp + (size_t)(p0 + p) * k * XF_GEMM_NR, wp, tile,
                                              XF_GEMM_NR, 1, l->bias + col0, a->relu);
                else
                    XF_FN(gemm_tile)(a->k, xr, a->k, p == 0 ? next : xr, wp, tile, XF_GEMM_NR, rows, 1,
                                     l->bias + col0, a->relu);
                xf_bf16_round_rows(tile, XF_GEMM_NR, rows, cols, yt, (size_t)a->n);
            }
        }
    }
}

// x is (m,k) bf16, w (n,k) bf16 (PyTorch's layout), y (m,n) bf16
void XF_BF_FN(linear_run)(const void *args, void *ctx)
{
    if (((linear_ctx *)ctx)->few)
        pair_rows(args, ctx);
    else
        gemm_rows(args, ctx);
}

// swapped: the mutant's packing bug (the halves of each pair exchanged).
static int prepare(const void *args, void **ctx, int swapped)
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
    // The column block: the panels of fp32 the GEMM's B block holds.
    const size_t panel_bytes = (k ? k : 1) * XF_GEMM_NR * sizeof(float);
    const size_t nb = xf_blocking_get()->gemm_b_block / panel_bytes;
    l->nb = nb < 1 ? 1 : nb > (size_t)l->panels ? l->panels : (int)nb;
    l->xf = xf_alloc_lines(((l->few ? FEW : (size_t)a->m) * k + 1) * sizeof(float));
    if (!l->few) l->wblock = xf_alloc_lines((size_t)l->nb * k * XF_GEMM_NR * sizeof(float) + 64);
    if (!l->bp || !l->bias || !l->xf || (!l->few && !l->wblock)) {
        XF_BF_FN(linear_release)(l);
        return -1;
    }
    for (int j = 0; a->b16 && j < a->n; j++) l->bias[j] = xf_bf16_to_f32(a->b16[j]);
    if (l->few) { // pair panels, zero past n
        for (int col0 = 0; col0 < a->n; col0 += PW)
            for (size_t kk = 0; kk < k; kk++)
                for (int j = 0; j < PW; j++) {
                    const int col = col0 + j, slot = 2 * (j % XV_W) + (j / XV_W ^ swapped);
                    l->bp[((size_t)col0 * k + kk * PW) + slot] = col < a->n ? a->w16[(size_t)col * k + kk] : 0;
                }
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

int XF_BF_FN(linear_prepare)(const void *args, void **ctx) { return prepare(args, ctx, 0); }
int XF_BF_FN(linear_prepare_pairs_swapped)(const void *args, void **ctx) { return prepare(args, ctx, 1); }

void XF_BF_FN(linear_release)(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp), free(l->bias), free(l->xf), free(l->wblock);
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
