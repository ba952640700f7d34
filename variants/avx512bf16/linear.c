// bf16 linear with AVX512_BF16: y = x W^T + b, x, W and y in bf16, each pair
// of products summed into fp32 by vdpbf16ps (lane i of the accumulator +=
// a[2i] b[2i] + a[2i+1] b[2i+1], both products exact).
// - GEMM: W is packed in prepare into panels of NR = 64 columns with the
//   pairs of k interleaved, [panel][k/2][64][2]: one zmm is 16 columns x one
//   pair of k, and the same pair of x's row (adjacent in memory: read in
//   place, broadcast as one 32-bit value) meets it in every lane. A 6 x 64
//   micro-tile keeps 24 zmm accumulators, 4 B loads and 1 broadcast in
//   registers, as the fp32 avx512 tile does; an odd k's last pair has a
//   zero second half in both. Column blocks of B are sized to half the L2
//   (variants/isa/blocking.c).
// - At most FEW rows (a decode step at batch 1 or 2): W streamed in its
//   own layout, each weight row dotted 32 k at a time with every x row, no
//   widening at all. A dot product loads an x vector per vdpbf16ps; from
//   three rows the GEMM's broadcasts cost fewer loads. Zen 4, 1 thread, a
//   64 MiB weight from DRAM, ms per call, row path -> GEMM: 3 rows
//   3.49-3.54 -> 2.83-2.97 (k 512), 3.05-6.22 -> 2.40-2.80 (k 2048); 4 rows
//   4.30-5.73 -> 3.15-3.43, 4.82-5.08 -> 2.39-2.58; 2 rows 2.64-2.66 ->
//   2.32-2.62 and 2.54-2.84 -> 2.86-3.54, so two stay here. The row kernel
//   takes up to XF_FEW_ROWS rows for the amx family's decode steps
//   (linear_prepare_rows), whose choice no AMX CPU has measured since.
// vdpbf16ps flushes denormal inputs and results to zero; the bound's
// "tiny" term does not cover that, so values below 2^-126 (which the
// harness never draws) could exceed it by 2^-126 per term.
// Proven natively on AVX512_BF16 CPUs (Zen 4, Emerald Rapids), and on any
// AVX2 CPU compiled on SIMDe as avx512bf16-emu (variants/emulated).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/half.h"
#include "../isa/blocking.h"
#include "../isa/huge.h"
#include "../avx512/vec.h"
#include "../simd/kernel_table.h"
#include "family.h"

enum { MR = 6, NR = 64, FEW = 2, U = 4, B_AHEAD = 12 };

typedef struct {
    xf_bf16 *bp;   // W packed [panel][k/2 rounded up][NR][2], zero past n and k; few rows: W as given, (n,k)
    float *bias;   // b widened, zero past n (whole panels)
    int panels, pairs, few;
} linear_ctx;

// The pair (x[0], x[1]) as one 32-bit lane value, low half first
// (little-endian, as vdpbf16ps pairs them), broadcast; and an odd k's last
// element with a zero second half.
static inline __m512bh pair_at(const xf_bf16 *x)
{
    uint32_t v;
    memcpy(&v, x, sizeof v);
    return (__m512bh)_mm512_set1_epi32((int)v);
}
static inline __m512bh last_at(const xf_bf16 *x) { return (__m512bh)_mm512_set1_epi32((int)(uint32_t)x[0]); }

// Row i of a tile of R rows (R a constant where the tile is inlined, so
// the rows past it vanish): its accumulators from the bias, one step of
// its pair A(i) against the four B vectors, its ReLU and bf16 store.
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define DECLARE(i) __m512 c##i##0 = b0, c##i##1 = b1, c##i##2 = b2, c##i##3 = b3;
// A(i): row i's pair of this step (pair_at in the loop, last_at after it)
#define STEP(i)                                                                                               \
    if ((i) < R) {                                                                                            \
        const __m512bh a = A(i);                                                                               \
        c##i##0 = _mm512_dpbf16_ps(c##i##0, a, w0), c##i##1 = _mm512_dpbf16_ps(c##i##1, a, w1);              \
        c##i##2 = _mm512_dpbf16_ps(c##i##2, a, w2), c##i##3 = _mm512_dpbf16_ps(c##i##3, a, w3);              \
    }
#define OUT(i)                                                                                                \
    if ((i) < R) {                                                                                            \
        if (relu)                                                                                             \
            c##i##0 = _mm512_max_ps(c##i##0, zero), c##i##1 = _mm512_max_ps(c##i##1, zero),                   \
            c##i##2 = _mm512_max_ps(c##i##2, zero), c##i##3 = _mm512_max_ps(c##i##3, zero);                   \
        xv_store_bf16(out + (i) * ldo, c##i##0);                                                              \
        xv_store_bf16(out + (i) * ldo + 16, c##i##1);                                                         \
        xv_store_bf16(out + (i) * ldo + 32, c##i##2);                                                         \
        xv_store_bf16(out + (i) * ldo + 48, c##i##3);                                                         \
    }

// y (R rows x cols, row stride n) = bf16(relu(A B + bias)); A is R rows of
// stride lda, read in place; B one packed panel. As the fp32 tile does
// (variants/simd/ukernels.c, where each is measured): every 16 pairs (a
// 64-byte line of each row) a line of the MR rows at pf, the next A panel,
// which the first tile of each panel is given (rows past the end of x if
// that panel is ragged: a prefetch does not fault); 32 pairs before the end,
// the tile's lines of y, which its stores then find in L1; B 12 pairs
// ahead. A tile of NR columns is stored to y in place, a narrower one
// through a tile on the stack. A ragged last panel of R < MR rows has its
// own tile (no products for rows that are not there: a padded 6-row tile
// for seq 512's last 2 rows was 0.8% of QKV's products).
// Zen 4, bf16 at seq 512, 1 thread, `bench --variant avx512bf16,dnnl
// --rounds 5`, processes alternating with the tile before (MR rows
// always, y through the stack, no prefetch; 8 runs of it, 4 of this): QKV
// (n 1536, k 512) median 3.61-3.78 ms -> 3.58-3.65, oneDNN's time / ours
// 0.990-1.019x before, 1.005-1.025x after; FFN1 (n 2048, k 512) 4.88-4.90
// -> 4.79 ms (--rounds 3, 2 runs each); FFN2 level.
static inline __attribute__((always_inline)) void tile_rows(const int R, int k, const xf_bf16 *ap, size_t lda,
                                                            const xf_bf16 *pf, const xf_bf16 *bp, const float *bias,
                                                            int relu, xf_bf16 *y, int n, int cols)
{
    const __m512 b0 = _mm512_loadu_ps(bias), b1 = _mm512_loadu_ps(bias + 16), b2 = _mm512_loadu_ps(bias + 32),
                 b3 = _mm512_loadu_ps(bias + 48), zero = _mm512_setzero_ps();
    const int y_at = k / 2 > 48 ? (k / 2 - 32) & ~15 : 0;
    ROWS(DECLARE)
    int p = 0;
#define A(i) pair_at(ap + (size_t)(i) * lda + 2 * p)
    for (; 2 * p + 1 < k; p++, bp += 2 * NR) {
        const __m512bh w0 = (__m512bh)_mm512_loadu_si512(bp), w1 = (__m512bh)_mm512_loadu_si512(bp + 32),
                       w2 = (__m512bh)_mm512_loadu_si512(bp + 64), w3 = (__m512bh)_mm512_loadu_si512(bp + 96);
        ROWS(STEP)
        for (int j = 0; j < 2 * NR; j += 32) _mm_prefetch((const char *)(bp + B_AHEAD * 2 * NR + j), _MM_HINT_T0);
        if ((p & 15) == 0) {
            for (int r = 0; r < MR; r++) _mm_prefetch((const char *)(pf + (size_t)r * lda + 2 * p), _MM_HINT_T0);
            if (p == y_at)
                for (int r = 0; r < R; r++)
                    for (int j = 0; j < NR; j += 32) _mm_prefetch((const char *)(y + (size_t)r * n + j), _MM_HINT_T0);
        }
    }
#undef A
#define A(i) last_at(ap + (size_t)(i) * lda + 2 * p)
    if (2 * p < k) { // an odd k: the packed pair's second half is zero too
        const __m512bh w0 = (__m512bh)_mm512_loadu_si512(bp), w1 = (__m512bh)_mm512_loadu_si512(bp + 32),
                       w2 = (__m512bh)_mm512_loadu_si512(bp + 64), w3 = (__m512bh)_mm512_loadu_si512(bp + 96);
        ROWS(STEP)
    }
#undef A
    if (cols == NR) {
        xf_bf16 *const out = y;
        const size_t ldo = (size_t)n;
        ROWS(OUT)
        return;
    }
    xf_bf16 tile[MR * NR], *const out = tile;
    const size_t ldo = NR;
    ROWS(OUT)
    for (int i = 0; i < R; i++) memcpy(y + (size_t)i * n, tile + i * NR, (size_t)cols * sizeof *y);
}

#define TILE_FN(r)                                                                                            \
    static void tile##r(int k, const xf_bf16 *ap, size_t lda, const xf_bf16 *pf, const xf_bf16 *bp,           \
                        const float *bias, int relu, xf_bf16 *y, int n, int cols)                             \
    {                                                                                                         \
        tile_rows(r, k, ap, lda, pf, bp, bias, relu, y, n, cols);                                             \
    }
TILE_FN(1)
TILE_FN(2)
TILE_FN(3)
TILE_FN(4)
TILE_FN(5)
TILE_FN(6)
typedef void tile_fn(int k, const xf_bf16 *ap, size_t lda, const xf_bf16 *pf, const xf_bf16 *bp, const float *bias,
                     int relu, xf_bf16 *y, int n, int cols);
_Static_assert(MR == 6, "tiles lists tiles of 1 to MR rows");
static tile_fn *const tiles[MR + 1] = {NULL, tile1, tile2, tile3, tile4, tile5, tile6};

// y[r][j] for the M x rows at x (row stride k) and weight row w: U
// independent accumulators per x row cover vdpbf16ps's latency; the last
// k % 32 by masked loads (zeros past the end).
static inline __attribute__((always_inline)) void dot_rows(const int M, const xf_linear_args *a, const xf_bf16 *w,
                                                           float bias, int j)
{
    const int k = a->k;
    __m512 acc[XF_FEW_ROWS][U];
    for (int r = 0; r < M; r++)
        for (int u = 0; u < U; u++) acc[r][u] = _mm512_setzero_ps();
    int p = 0;
    for (; p + 32 * U <= k; p += 32 * U)
        for (int u = 0; u < U; u++) {
            const __m512bh wv = (__m512bh)_mm512_loadu_si512(w + p + 32 * u);
            for (int r = 0; r < M; r++)
                acc[r][u] = _mm512_dpbf16_ps(
                    acc[r][u], (__m512bh)_mm512_loadu_si512(a->x16 + (size_t)r * k + p + 32 * u), wv);
        }
    for (; p < k; p += 32) {
        const __mmask32 m = k - p >= 32 ? ~(__mmask32)0 : (((__mmask32)1 << (k - p)) - 1);
        const __m512bh wv = (__m512bh)_mm512_maskz_loadu_epi16(m, w + p);
        for (int r = 0; r < M; r++)
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], (__m512bh)_mm512_maskz_loadu_epi16(m, a->x16 + (size_t)r * k + p),
                                         wv);
    }
    for (int r = 0; r < M; r++) {
        const __m512 s = _mm512_add_ps(_mm512_add_ps(acc[r][0], acc[r][1]), _mm512_add_ps(acc[r][2], acc[r][3]));
        float v = xv_hsum(s) + bias;
        if (a->relu && v < 0.0f) v = 0.0f;
        a->y16[(size_t)r * a->n + j] = xf_bf16_from_f32(v);
    }
}

// Output columns j0..j1 of a decode step's few rows.
static void few_rows(const xf_linear_args *a, const linear_ctx *l, int j0, int j1)
{
    const xf_bf16 *w = l->bp;
    switch (a->m) {
    case 1: for (int j = j0; j < j1; j++) dot_rows(1, a, w + (size_t)j * a->k, l->bias[j], j); break;
    case 2: for (int j = j0; j < j1; j++) dot_rows(2, a, w + (size_t)j * a->k, l->bias[j], j); break;
    case 3: for (int j = j0; j < j1; j++) dot_rows(3, a, w + (size_t)j * a->k, l->bias[j], j); break;
    default: for (int j = j0; j < j1; j++) dot_rows(4, a, w + (size_t)j * a->k, l->bias[j], j); break;
    }
}

void XF_DOT_FN(linear_columns)(const void *args, void *ctx, int j0, int j1) { few_rows(args, ctx, j0, j1); }

// x is (m,k) bf16, w (n,k) bf16 (PyTorch's layout), y (m,n) bf16
void XF_DOT_FN(linear_run)(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = ctx;
    if (l->few) {
        few_rows(a, l, 0, a->n);
        return;
    }
    const size_t panel_bytes = (size_t)l->pairs * 2 * NR * sizeof(xf_bf16);
    int block = (int)(xf_blocking_get()->gemm_b_block / (panel_bytes ? panel_bytes : 1));
    if (block < 1) block = 1;
    for (int p0 = 0; p0 < l->panels; p0 += block) {
        const int p1 = p0 + block < l->panels ? p0 + block : l->panels;
        for (int r0 = 0; r0 < a->m; r0 += MR) {
            const int rows = a->m - r0 < MR ? a->m - r0 : MR;
            const xf_bf16 *ap = a->x16 + (size_t)r0 * a->k;
            const xf_bf16 *next = r0 + MR < a->m ? ap + (size_t)MR * a->k : ap;
            for (int p = p0; p < p1; p++) {
                const int cols = a->n - p * NR < NR ? a->n - p * NR : NR;
                tiles[rows](a->k, ap, (size_t)a->k, p == p0 ? next : ap, l->bp + (size_t)p * l->pairs * 2 * NR,
                            l->bias + (size_t)p * NR, a->relu, a->y16 + (size_t)r0 * a->n + (size_t)p * NR, a->n,
                            cols);
            }
        }
    }
}

void XF_DOT_FN(linear_release)(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp), free(l->bias);
    free(l);
}

// dropped: the mutant's bug, pair 1 of k packed as zeros. few_max: the
// most rows that take the row path.
static int prepare(const xf_linear_args *a, void **ctx, int dropped, int few_max)
{
    linear_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    l->panels = (a->n + NR - 1) / NR;
    l->pairs = (a->k + 1) / 2;
    l->few = a->m <= few_max;
    l->bp = xf_alloc_huge(((size_t)l->panels * l->pairs * 2 * NR + 1) * sizeof(xf_bf16));
    l->bias = calloc((size_t)l->panels * NR, sizeof(float));
    if (!l->bp || !l->bias) {
        XF_DOT_FN(linear_release)(l);
        return -1;
    }
    for (int j = 0; a->b16 && j < a->n; j++) l->bias[j] = xf_bf16_to_f32(a->b16[j]);
    if (l->few) { // in huge pages, as given: streamed once per call
        memcpy(l->bp, a->w16, (size_t)a->n * a->k * sizeof(xf_bf16));
        if (dropped)
            for (int j = 0; j < a->n; j++)
                for (int e = 2; e < 4 && e < a->k; e++) l->bp[(size_t)j * a->k + e] = 0;
        *ctx = l;
        return 0;
    }
    for (int p = 0; p < l->panels; p++)
        for (int q = 0; q < l->pairs; q++)
            for (int j = 0; j < NR; j++)
                for (int e = 0; e < 2; e++) {
                    const int col = p * NR + j, kk = 2 * q + e;
                    const int keep = col < a->n && kk < a->k && !(dropped && q == 1);
                    l->bp[(((size_t)p * l->pairs + q) * NR + j) * 2 + e] = keep ? a->w16[(size_t)col * a->k + kk] : 0;
                }
    *ctx = l;
    return 0;
}

int XF_DOT_FN(linear_prepare)(const void *args, void **ctx) { return prepare(args, ctx, 0, FEW); }
int XF_DOT_FN(linear_prepare_rows)(const void *args, void **ctx) { return prepare(args, ctx, 0, XF_FEW_ROWS); }
int XF_DOT_FN(linear_prepare_dropped_pair)(const void *args, void **ctx) { return prepare(args, ctx, 1, FEW); }

// lm_head: the linear with the table as its weight (xf_lm_head_as_linear).
int XF_DOT_FN(lm_head_prepare)(const void *args, void **ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    return XF_DOT_FN(linear_prepare)(&l, ctx);
}

// x is (rows,d), table is (vocab,d), logits are (rows,vocab), all bf16
void XF_DOT_FN(lm_head_run)(const void *args, void *ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    XF_DOT_FN(linear_run)(&l, ctx);
}

void XF_DOT_FN(lm_head_release)(void *ctx) { XF_DOT_FN(linear_release)(ctx); }
