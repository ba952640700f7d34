// Softmax in three passes over a row that stays in L1 (scale and mask while
// finding the max; exp and sum; normalise), so memory sees one read and one
// write per element. The rows are stored in fp32, or in bf16 for the
// bf16-storage families (variants/bf16fma): widened as the first pass
// loads them and rounded as the last stores them, the arithmetic fp32
// either way. A bf16 row widened into the scratch row first and rounded
// out of it after took five passes, and ran slower than fp32's three at
// 8 x 8 x 2048 x 2048 on Zen 4 with half the bytes (docs/performance.md).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/half.h"
#include "simd.h"

// Element j of a row stored in fp32 or (bf16) in bf16: a vector, one value.
static inline xv load_row(const void *x, int bf16, int j)
{
    return bf16 ? xv_load_bf16((const xf_bf16 *)x + j) : xv_load((const float *)x + j);
}
static inline float load_one(const void *x, int bf16, int j)
{
    return bf16 ? xf_bf16_to_f32(((const xf_bf16 *)x)[j]) : ((const float *)x)[j];
}

// t[0..n) = scale * x, -inf where pad is set; returns the max. t may be x.
static inline float scale_mask_max(const void *x, int bf16, float *t, int n, float scale, const uint8_t *pad)
{
    const xv s = xv_set1(scale);
    xv vmax = xv_set1(-INFINITY);
    int j = 0;
    for (; j + XV_W <= n; j += XV_W) {
        xv v = xv_mul(load_row(x, bf16, j), s);
        if (pad) v = xv_pad_to_neg_inf(v, pad + j);
        xv_store(t + j, v);
        vmax = xv_max(vmax, v);
    }
    float max = xv_hmax(vmax);
    for (; j < n; j++) { // the ragged end, one key at a time
        t[j] = pad && pad[j] ? -INFINITY : scale * load_one(x, bf16, j);
        if (t[j] > max) max = t[j];
    }
    return max;
}

// t[0..n) = exp(t - max) in place, or 2^(t - max) if base2 (-inf gives
// exactly 0); returns the sum. If next is not NULL, asks for the next row,
// next[0..n) of elements of next_size bytes, along the way, a cache line
// per vector at most: the arithmetic of this pass then overlaps the memory
// traffic of the caller's next row (+60% on softmax; two rows ahead was
// slower).
static inline float exp_sum_prefetch(float *t, int n, float max, const void *next, int next_size, int base2)
{
    const xv m = xv_set1(max);
    xv vsum = xv_zero();
    int j = 0;
    for (; j + XV_W <= n; j += XV_W) {
        if (next)
            for (int l = 0; l < XV_W * next_size; l += 64)
                _mm_prefetch((const char *)next + (size_t)j * next_size + l, _MM_HINT_T0);
        const xv d = xv_sub(xv_load(t + j), m), e = base2 ? xv_exp2(d) : xv_exp(d);
        xv_store(t + j, e);
        vsum = xv_add(vsum, e);
    }
    if (j < n) {
        const xv d = xv_sub(xv_load_tail(t + j, n - j, -INFINITY), m), e = base2 ? xv_exp2(d) : xv_exp(d);
        xv_store_tail(t + j, e, n - j);
        vsum = xv_add(vsum, e);
    }
    return xv_hsum(vsum);
}

float XF_FN(exp_sum)(float *t, int n, float max) { return exp_sum_prefetch(t, n, max, NULL, 0, 0); }

// y = softmax(scale * x + mask) for one query row i, x and y stored in
// fp32 or (bf16) both in bf16, worked on in the fp32 row t (t may be y; y
// may be x; in bf16 t is neither); next: the row the caller does next, to
// prefetch, or NULL. If stream and y is an fp32 row aligned to vectors, y
// is written once by streaming stores (t must then not be y): one write to
// memory instead of the read for ownership plus write of a cached store
// (softmax 60% -> 86% of triad). bf16 rows are stored through the cache:
// streaming their half-vectors measured level.
static inline __attribute__((always_inline)) void softmax_row_xy(int n, const void *x, void *y, int bf16, float *t,
                                                                 float scale, const uint8_t *pad, int causal, int i,
                                                                 const void *next, int stream)
{
    float *y32 = y;
    xf_bf16 *y16 = y;
    const size_t size = bf16 ? sizeof(xf_bf16) : sizeof(float); // of an element of x and y
    // Keys past the diagonal are masked by the causal rule: never read.
    const int n_vis = causal && i + 1 < n ? i + 1 : n;
    // In base 2, as the fused attention (variants/simd/flash.c, row_exp_sum,
    // which says why its roundings are within the reference's bound): the
    // scores times scale log2 e, then 2^(t - max), the table exp2 of each
    // vec.h, about half the instructions of the natural exp's reduction
    // and polynomial, on a pass that is bound by them on Zen 4.
    const float max = scale_mask_max(x, bf16, t, n_vis, scale * XF_EXP_LOG2E, pad);
    if (max == -INFINITY) { // no visible key: zeros, never NaN (all-zero bits in either storage)
        memset(y, 0, (size_t)n * size);
        return;
    }
    const float inv_sum = 1.0f / exp_sum_prefetch(t, n_vis, max, next, (int)size, 1);
    const xv inv = xv_set1(inv_sum);
    int j = 0;
    if (bf16) {
        for (; j + XV_W <= n_vis; j += XV_W) xv_store_bf16(y16 + j, xv_mul(xv_load(t + j), inv));
        for (; j < n_vis; j++) y16[j] = xf_bf16_from_f32(t[j] * inv_sum);
    } else {
        if (stream && ((uintptr_t)y & 63) == 0)
            for (; j + XV_W <= n_vis; j += XV_W) xv_stream(y32 + j, xv_mul(xv_load(t + j), inv));
        for (; j + XV_W <= n_vis; j += XV_W) xv_store(y32 + j, xv_mul(xv_load(t + j), inv));
        if (j < n_vis) xv_store_tail(y32 + j, xv_mul(xv_load_tail(t + j, n_vis - j, 0.0f), inv), n_vis - j);
    }
    if (n_vis < n) memset((char *)y + (size_t)n_vis * size, 0, (size_t)(n - n_vis) * size); // hidden by the causal rule
}

void XF_FN(softmax_row)(int n, float *t, float scale, const uint8_t *pad_row, int causal, int i)
{
    softmax_row_xy(n, t, t, 0, t, scale, pad_row, causal, i, NULL, 0);
}

// Rows r0..r1 of the (batch*heads*seq_q) rows of x and y (x16 and y16 if
// bf16); t is a scratch row of seq_k floats. stream: write y by streaming
// stores (the caller decides from the whole output's size).
static inline __attribute__((always_inline)) void softmax_rows_any(const xf_softmax_args *a, size_t r0, size_t r1,
                                                                   float *t, int stream, int bf16)
{
    const size_t rows = (size_t)a->batch * a->heads * a->seq_q, size = bf16 ? sizeof(xf_bf16) : sizeof(float);
    const char *x = bf16 ? (const char *)a->x16 : (const char *)a->x;
    char *y = bf16 ? (char *)a->y16 : (char *)a->y;
    for (size_t r = r0; r < r1; r++) {
        const int b = (int)(r / ((size_t)a->heads * a->seq_q)), i = (int)(r % (size_t)a->seq_q);
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        const size_t row = r * a->seq_k * size;
        const char *next = r + 1 < rows ? x + row + a->seq_k * size : NULL;
        softmax_row_xy(a->seq_k, x + row, y + row, bf16, t, a->scale, pad, a->causal, i, next, stream);
    }
    if (stream) _mm_sfence(); // streaming stores are weakly ordered: publish them
}

void XF_FN(softmax_rows)(const xf_softmax_args *a, size_t r0, size_t r1, float *t, int stream)
{
    softmax_rows_any(a, r0, r1, t, stream, 0);
}

void XF_FN(softmax_rows_bf16)(const xf_softmax_args *a, size_t r0, size_t r1, float *t)
{
    softmax_rows_any(a, r0, r1, t, 0, 1);
}

static int stream_output(const xf_softmax_args *a)
{
    return xf_stream_output(2 * (size_t)a->batch * a->heads * a->seq_q * a->seq_k * sizeof(float)); // x, y
}

// x and y are (batch,heads,seq_q,seq_k); ctx is a scratch row of seq_k floats.
void XF_FN(softmax_run)(const void *args, void *ctx)
{
    const xf_softmax_args *a = args;
    XF_FN(softmax_rows)(a, 0, (size_t)a->batch * a->heads * a->seq_q, ctx, stream_output(a));
}

int XF_FN(softmax_prepare)(const void *args, void **ctx)
{
    const xf_softmax_args *a = args;
    *ctx = aligned_alloc(64, ((size_t)a->seq_k * sizeof(float) + 63) / 64 * 64 + 64);
    return *ctx ? 0 : -1;
}

void XF_FN(softmax_release)(void *ctx) { free(ctx); }
