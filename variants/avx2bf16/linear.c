// bf16 linear on any AVX2 CPU: x, W and y stored in bf16 (half the bytes of
// fp32), arithmetic in fp32 FMA. W is packed in prepare into panels of 16
// columns, [panel][k][16] bf16; x is widened once per call, a block of
// rows at a time (as many as the A block holds in fp32), into 6-row panels
// of [k][6] floats; the 6 x 16 micro-tile widens its B row (two shifts)
// every k step and rounds the tile to bf16 at the end. Column blocks of B
// are sized to half the L2 (variants/isa/blocking.c), so a B block is read
// from L2 by every row panel. Widening x's panel again for every column
// block (8 times at FFN2's 512 x 512 x 2048) had cost 15%: measured on
// Zen 3, 13.49 -> 11.49 ms there, 4% at QKV and FFN1 (docs/performance.md).
// Calls of at most FEW rows (a decode step) stream W instead, row by row
// in its own layout (as the fp32 families' linear_rows, variants/simd/
// decode.c): each weight row widened and dotted with every x row (widened
// once per call), so a step reads half the bytes fp32 weights would, with
// a software prefetch ahead in the stream (PF).
#include <stdlib.h>
#include <string.h>

#include "../isa/blocking.h"
#include "../isa/huge.h"
#include "../../kernels/half.h"
#include "bf16.h"
#include "family.h"

enum { MR = 6, NR = 16, FEW = 4, U = 4 };
// Few rows: how far ahead in the weight stream each 64-byte step asks for
// its line, in bf16 (512: 1 KiB, 16 lines). A bf16 line carries twice the
// elements of an fp32 one, so twice the instructions (widening included):
// the out-of-order window then reaches fewer lines ahead than the fp32
// kernel's, and the prefetch makes up for it. Measured on Zen 3, generate
// at batch 1 (three interleaved rounds): none 179 tokens/s, 512: 190,
// 1024: 191, 2048: 159 (too far: evicted before use). The fp32 row kernel
// lost 12-17% with the same prefetch (variants/simd/decode.c has none).
enum { PF = 512 };

typedef struct {
    xf_bf16 *bp; // W packed [panel][k][NR], zero past n; few rows: W as given, (n,k)
    float *bias; // b widened, zero past n (whole panels)
    float *ap;   // one row panel of x widened, [k][MR]; few rows: the x rows widened, (m,k)
    int panels;
    int a_rows;  // rows of x widened at a time (a multiple of MR), ap's panels
    int few;     // m <= FEW
} linear_ctx;

// y[r][j] for the M rows r of x (xf, widened; M <= FEW, a constant where
// it is called, so the M x U accumulators stay in registers) and one weight
// row w (bf16): U independent accumulators per x row cover the FMA latency.
static inline __attribute__((always_inline)) void dot_rows(const int M, const xf_linear_args *a, const float *xf,
                                                           const xf_bf16 *w, float bias, int j)
{
    __m256 acc[FEW][U];
    for (int r = 0; r < M; r++)
        for (int u = 0; u < U; u++) acc[r][u] = _mm256_setzero_ps();
    int p = 0;
    for (; p + 8 * U <= a->k; p += 8 * U) {
        _mm_prefetch((const char *)(w + p + PF), _MM_HINT_T0);
        for (int u = 0; u < U; u++) {
            const __m256 wv = xf_bf16x8_load(w + p + 8 * u);
            for (int r = 0; r < M; r++)
                acc[r][u] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(xf + (size_t)r * a->k + p + 8 * u), acc[r][u]);
        }
    }
    for (int r = 0; r < M; r++) {
        float tail = 0.0f; // the last k % 32 terms
        for (int q = p; q < a->k; q++) tail += xf_bf16_to_f32(w[q]) * xf[(size_t)r * a->k + q];
        const __m256 s = _mm256_add_ps(_mm256_add_ps(acc[r][0], acc[r][1]), _mm256_add_ps(acc[r][2], acc[r][3]));
        float v = xf_f32x8_hsum(s) + tail + bias;
        if (a->relu && v < 0.0f) v = 0.0f;
        a->y16[(size_t)r * a->n + j] = xf_bf16_from_f32(v);
    }
}

static void few_rows(const xf_linear_args *a, linear_ctx *l)
{
    for (size_t i = 0; i < (size_t)a->m * a->k; i++) l->ap[i] = xf_bf16_to_f32(a->x16[i]);
    const xf_bf16 *w = l->bp;
    switch (a->m) {
    case 1: for (int j = 0; j < a->n; j++) dot_rows(1, a, l->ap, w + (size_t)j * a->k, l->bias[j], j); break;
    case 2: for (int j = 0; j < a->n; j++) dot_rows(2, a, l->ap, w + (size_t)j * a->k, l->bias[j], j); break;
    case 3: for (int j = 0; j < a->n; j++) dot_rows(3, a, l->ap, w + (size_t)j * a->k, l->bias[j], j); break;
    default: for (int j = 0; j < a->n; j++) dot_rows(4, a, l->ap, w + (size_t)j * a->k, l->bias[j], j); break;
    }
}

// The micro-tile's 12 accumulators as named variables (an array would be
// kept in memory by gcc).
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define DECLARE(i) __m256 c##i##0 = b0, c##i##1 = b1;
#define STEP(i)                                                                                               \
    {                                                                                                         \
        const __m256 a = _mm256_broadcast_ss(ap + i);                                                          \
        c##i##0 = _mm256_fmadd_ps(a, w0, c##i##0), c##i##1 = _mm256_fmadd_ps(a, w1, c##i##1);                 \
    }
#define OUT(i)                                                                                                \
    if (relu) c##i##0 = _mm256_max_ps(c##i##0, zero), c##i##1 = _mm256_max_ps(c##i##1, zero);                 \
    _mm_storeu_si128((__m128i *)(tile + i * NR), xf_bf16x8_round(c##i##0));                                    \
    _mm_storeu_si128((__m128i *)(tile + i * NR + 8), xf_bf16x8_round(c##i##1));

// y (rows x cols of the tile, row stride n) = bf16(relu(A B + bias)), A a
// widened row panel [k][MR], B one packed panel [k][NR].
static void micro_tile(int k, const float *ap, const xf_bf16 *bp, const float *bias, int relu, xf_bf16 *y, int n,
                       int rows, int cols)
{
    const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8), zero = _mm256_setzero_ps();
    ROWS(DECLARE)
    for (int kk = 0; kk < k; kk++, ap += MR, bp += NR) {
        const __m256 w0 = xf_bf16x8_load(bp), w1 = xf_bf16x8_load(bp + 8);
        ROWS(STEP)
    }
    xf_bf16 tile[MR * NR];
    ROWS(OUT)
    for (int i = 0; i < rows; i++) memcpy(y + (size_t)i * n, tile + i * NR, (size_t)cols * sizeof *y);
}

// Rows r0..r0+rows of x widened into one panel ap, [k][MR], zeros past rows.
static void widen_panel(const xf_linear_args *a, int r0, int rows, float *ap)
{
    for (int kk = 0; kk < a->k; kk++)
        for (int i = 0; i < MR; i++)
            ap[(size_t)kk * MR + i] = i < rows ? xf_bf16_to_f32(a->x16[(size_t)(r0 + i) * a->k + kk]) : 0.0f;
}

// x is (m,k) bf16, w (n,k) bf16 (PyTorch's layout), y (m,n) bf16
void xf_avx2bf16_linear_run(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = ctx;
    if (l->few) {
        few_rows(a, l);
        return;
    }
    const size_t panel_bytes = (size_t)a->k * NR * sizeof(xf_bf16);
    int block = (int)(xf_blocking_get()->gemm_b_block / (panel_bytes ? panel_bytes : 1));
    if (block < 1) block = 1;
    const size_t panel_floats = (size_t)a->k * MR;
    for (int i0 = 0; i0 < a->m; i0 += l->a_rows) {
        const int i1 = i0 + l->a_rows < a->m ? i0 + l->a_rows : a->m;
        for (int r0 = i0; r0 < i1; r0 += MR) // the block's rows widened once, for every column block
            widen_panel(a, r0, i1 - r0 < MR ? i1 - r0 : MR, l->ap + (size_t)(r0 - i0) / MR * panel_floats);
        for (int p0 = 0; p0 < l->panels; p0 += block) {
            const int p1 = p0 + block < l->panels ? p0 + block : l->panels;
            for (int r0 = i0; r0 < i1; r0 += MR) {
                const int rows = i1 - r0 < MR ? i1 - r0 : MR;
                const float *ap = l->ap + (size_t)(r0 - i0) / MR * panel_floats;
                for (int p = p0; p < p1; p++) {
                    const int cols = a->n - p * NR < NR ? a->n - p * NR : NR;
                    micro_tile(a->k, ap, l->bp + (size_t)p * a->k * NR, l->bias + (size_t)p * NR, a->relu,
                               a->y16 + (size_t)r0 * a->n + (size_t)p * NR, a->n, rows, cols);
                }
            }
        }
    }
}

int xf_avx2bf16_linear_prepare(const void *args, void **ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    l->panels = (a->n + NR - 1) / NR;
    l->few = a->m <= FEW;
    l->bp = xf_alloc_huge((size_t)l->panels * a->k * NR * sizeof(xf_bf16));
    l->bias = calloc((size_t)l->panels * NR, sizeof(float));
    // A block of x's rows, widened once for every column block of W: as
    // many rows as the A block the blocking gives (variants/isa/blocking.c)
    // holds in fp32, whole panels.
    const size_t a_block = xf_blocking_get()->gemm_a_block / ((size_t)(a->k ? a->k : 1) * sizeof(float));
    l->a_rows = (int)(a_block / MR * MR);
    if (l->a_rows < MR) l->a_rows = MR;
    if (l->a_rows > (a->m + MR - 1) / MR * MR) l->a_rows = (a->m + MR - 1) / MR * MR;
    l->ap = malloc(((size_t)a->k * (l->few ? FEW : (size_t)l->a_rows) + 1) * sizeof(float));
    if (!l->bp || !l->bias || !l->ap) {
        xf_avx2bf16_linear_release(l);
        return -1;
    }
    for (int j = 0; a->b16 && j < a->n; j++) l->bias[j] = xf_bf16_to_f32(a->b16[j]);
    if (l->few) { // in huge pages, as given: streamed once per call
        memcpy(l->bp, a->w16, (size_t)a->n * a->k * sizeof(xf_bf16));
        *ctx = l;
        return 0;
    }
    for (int p = 0; p < l->panels; p++)
        for (int kk = 0; kk < a->k; kk++)
            for (int j = 0; j < NR; j++) {
                const int col = p * NR + j;
                l->bp[((size_t)p * a->k + kk) * NR + j] = col < a->n ? a->w16[(size_t)col * a->k + kk] : 0;
            }
    *ctx = l;
    return 0;
}

void xf_avx2bf16_linear_release(void *ctx)
{
    linear_ctx *l = ctx;
    if (!l) return;
    free(l->bp), free(l->bias), free(l->ap);
    free(l);
}

// lm_head: the linear with the table as its weight (xf_lm_head_as_linear).
int xf_avx2bf16_lm_head_prepare(const void *args, void **ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    return xf_avx2bf16_linear_prepare(&l, ctx);
}

// x is (rows,d), table is (vocab,d), logits are (rows,vocab), all bf16
void xf_avx2bf16_lm_head_run(const void *args, void *ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    xf_avx2bf16_linear_run(&l, ctx);
}

void xf_avx2bf16_lm_head_release(void *ctx) { xf_avx2bf16_linear_release(ctx); }
