// Softmax in three passes over a row that stays in L1 (scale and mask while
// finding the max; exp and sum; normalise), so memory sees one read and one
// write per element.
#include <math.h>

#include "simd.h"

// y = softmax(scale * x + mask) for one query row i; y may be x.
static void softmax_row_xy(int n, const float *x, float *y, float scale, const uint8_t *pad,
                           int causal, int i)
{
    // Keys past the diagonal are masked by the causal rule: never read.
    const int n_vis = causal && i + 1 < n ? i + 1 : n;
    const xv s = xv_set1(scale);
    xv vmax = xv_set1(-INFINITY);
    int j = 0;
    for (; j + XV_W <= n_vis; j += XV_W) {
        xv t = xv_mul(xv_load(x + j), s);
        if (pad) t = xv_pad_to_neg_inf(t, pad + j);
        xv_store(y + j, t);
        vmax = xv_max(vmax, t);
    }
    float max = xv_hmax(vmax);
    for (; j < n_vis; j++) { // the ragged end, one key at a time
        y[j] = pad && pad[j] ? -INFINITY : scale * x[j];
        if (y[j] > max) max = y[j];
    }
    if (max == -INFINITY) { // no visible key: zeros, never NaN
        for (j = 0; j < n; j++) y[j] = 0.0f;
        return;
    }
    const xv m = xv_set1(max);
    xv vsum = xv_zero();
    for (j = 0; j + XV_W <= n_vis; j += XV_W) {
        xv e = xv_exp(xv_sub(xv_load(y + j), m));
        xv_store(y + j, e);
        vsum = xv_add(vsum, e);
    }
    if (j < n_vis) {
        xv e = xv_exp(xv_sub(xv_load_tail(y + j, n_vis - j, -INFINITY), m));
        xv_store_tail(y + j, e, n_vis - j);
        vsum = xv_add(vsum, e);
    }
    const xv inv = xv_set1(1.0f / xv_hsum(vsum));
    for (j = 0; j + XV_W <= n_vis; j += XV_W) xv_store(y + j, xv_mul(xv_load(y + j), inv));
    if (j < n_vis) xv_store_tail(y + j, xv_mul(xv_load_tail(y + j, n_vis - j, 0.0f), inv), n_vis - j);
    for (j = n_vis; j < n; j++) y[j] = 0.0f;
}

void XF_FN(softmax_row)(int n, float *t, float scale, const uint8_t *pad_row, int causal, int i)
{
    softmax_row_xy(n, t, t, scale, pad_row, causal, i);
}

// x and y are (batch,heads,seq_q,seq_k)
void XF_FN(softmax_run)(const void *args, void *ctx)
{
    (void)ctx;
    const xf_softmax_args *a = args;
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++)
            for (int i = 0; i < a->seq_q; i++) {
                size_t row = (((size_t)b * a->heads + h) * a->seq_q + i) * a->seq_k;
                softmax_row_xy(a->seq_k, a->x + row, a->y + row, a->scale, pad, a->causal, i);
            }
    }
}
