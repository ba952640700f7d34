// Softmax in three passes over a row that stays in L1 (scale and mask while
// finding the max; exp and sum; normalise), so memory sees one read and one
// write per element.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "simd.h"

// y[0..n) = scale * x, -inf where pad is set; returns the max. y may be x.
float XF_FN(scale_mask_max)(const float *x, float *y, int n, float scale, const uint8_t *pad)
{
    const xv s = xv_set1(scale);
    xv vmax = xv_set1(-INFINITY);
    int j = 0;
    for (; j + XV_W <= n; j += XV_W) {
        xv t = xv_mul(xv_load(x + j), s);
        if (pad) t = xv_pad_to_neg_inf(t, pad + j);
        xv_store(y + j, t);
        vmax = xv_max(vmax, t);
    }
    float max = xv_hmax(vmax);
    for (; j < n; j++) { // the ragged end, one key at a time
        y[j] = pad && pad[j] ? -INFINITY : scale * x[j];
        if (y[j] > max) max = y[j];
    }
    return max;
}

// t[0..n) = exp(t - max) in place, or 2^(t - max) if base2 (-inf gives
// exactly 0); returns the sum. If next is not NULL, asks for next[0..n)
// along the way, one cache line per vector: the arithmetic of this pass
// then overlaps the memory traffic of the caller's next row (+60% on
// softmax; two rows ahead was slower).
static inline float exp_sum_prefetch(float *t, int n, float max, const float *next, int base2)
{
    const xv m = xv_set1(max);
    xv vsum = xv_zero();
    int j = 0;
    for (; j + XV_W <= n; j += XV_W) {
        if (next)
            for (int l = 0; l < XV_W; l += 64 / (int)sizeof(float))
                _mm_prefetch((const char *)(next + j + l), _MM_HINT_T0);
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

float XF_FN(exp_sum)(float *t, int n, float max) { return exp_sum_prefetch(t, n, max, NULL, 0); }

// y = softmax(scale * x + mask) for one query row i, worked on in t (t may
// be y; y may be x); next: the row the caller does next, to prefetch, or
// NULL. If stream and y is vector-aligned, y is written once by streaming
// stores (t must then not be y): one write to memory instead of the read
// for ownership plus write of a cached store (softmax 60% -> 86% of triad).
static void softmax_row_xy(int n, const float *x, float *y, float *t, float scale,
                           const uint8_t *pad, int causal, int i, const float *next, int stream)
{
    // Keys past the diagonal are masked by the causal rule: never read.
    const int n_vis = causal && i + 1 < n ? i + 1 : n;
    // In base 2, as the fused attention (variants/simd/flash.c, row_exp_sum,
    // which says why its roundings are within the reference's bound): the
    // scores times scale log2 e, then 2^(t - max), the table exp2 of each
    // vec.h, about half the instructions of the natural exp's reduction
    // and polynomial, on a pass that is bound by them on Zen 4.
    const float max = XF_FN(scale_mask_max)(x, t, n_vis, scale * XF_EXP_LOG2E, pad);
    if (max == -INFINITY) { // no visible key: zeros, never NaN
        for (int j = 0; j < n; j++) y[j] = 0.0f;
        return;
    }
    const xv inv = xv_set1(1.0f / exp_sum_prefetch(t, n_vis, max, next, 1));
    int j = 0;
    if (stream && ((uintptr_t)y & 63) == 0)
        for (; j + XV_W <= n_vis; j += XV_W) xv_stream(y + j, xv_mul(xv_load(t + j), inv));
    for (; j + XV_W <= n_vis; j += XV_W) xv_store(y + j, xv_mul(xv_load(t + j), inv));
    if (j < n_vis) xv_store_tail(y + j, xv_mul(xv_load_tail(t + j, n_vis - j, 0.0f), inv), n_vis - j);
    for (j = n_vis; j < n; j++) y[j] = 0.0f;
}

void XF_FN(softmax_row)(int n, float *t, float scale, const uint8_t *pad_row, int causal, int i)
{
    softmax_row_xy(n, t, t, t, scale, pad_row, causal, i, NULL, 0);
}

// Rows r0..r1 of the (batch*heads*seq_q) rows of x and y; t is a scratch
// row of seq_k floats. stream: write y by streaming stores (the caller
// decides from the whole output's size).
void XF_FN(softmax_rows)(const xf_softmax_args *a, size_t r0, size_t r1, float *t, int stream)
{
    const size_t rows = (size_t)a->batch * a->heads * a->seq_q;
    for (size_t r = r0; r < r1; r++) {
        const int b = (int)(r / ((size_t)a->heads * a->seq_q)), i = (int)(r % (size_t)a->seq_q);
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        const size_t row = r * a->seq_k;
        const float *next = r + 1 < rows ? a->x + row + a->seq_k : NULL;
        softmax_row_xy(a->seq_k, a->x + row, a->y + row, t, a->scale, pad, a->causal, i, next, stream);
    }
    _mm_sfence(); // streaming stores are weakly ordered: publish them
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
