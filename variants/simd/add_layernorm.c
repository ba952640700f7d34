// Add & LayerNorm per row: v = x + r written to a scratch row while
// summing, then the variance around the mean from it, then normalise into
// y. The scratch row (d_model floats) stays in L1 between passes: memory
// sees one read of x and r and one write of y, by streaming stores when y
// is at least the streaming threshold (the L3, kernel_table.h) and its
// row vector-aligned (no read for ownership of y: on Zen 4, 60% -> 80-89%
// of triad at 2048 x 512 x batch 8).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "simd.h"

// Rows r0..r1 of x, r, y; v_row is a scratch row of d floats. big: write
// y by streaming stores (the caller decides from the whole output's size).
void XF_FN(add_layernorm_rows)(const xf_add_layernorm_args *a, int r0, int r1, float *v_row, int big)
{
    const int d = a->d, tail = d % XV_W, body = d - tail;
    for (int i = r0; i < r1; i++) {
        const float *x = a->x + (size_t)i * d, *r = a->r + (size_t)i * d;
        float *y = a->y + (size_t)i * d, *t = v_row;
        xv vs = xv_zero();
        for (int c = 0; c < body; c += XV_W) {
            xv v = xv_add(xv_load(x + c), xv_load(r + c));
            xv_store(t + c, v);
            vs = xv_add(vs, v);
        }
        if (tail) {
            xv v = xv_add(xv_load_tail(x + body, tail, 0.0f), xv_load_tail(r + body, tail, 0.0f));
            xv_store_tail(t + body, v, tail);
            vs = xv_add(vs, v);
        }
        const float mean = xv_hsum(vs) / (float)d;
        const xv m = xv_set1(mean);
        xv vv = xv_zero();
        for (int c = 0; c < body; c += XV_W) {
            xv dv = xv_sub(xv_load(t + c), m);
            vv = xv_fma(dv, dv, vv);
        }
        if (tail) { // lanes past the row hold mean, contributing 0
            xv dv = xv_sub(xv_load_tail(t + body, tail, mean), m);
            vv = xv_fma(dv, dv, vv);
        }
        const float rstd = 1.0f / sqrtf(xv_hsum(vv) / (float)d + XF_LN_EPS);
        const xv rs = xv_set1(rstd);
        const int stream = big && ((uintptr_t)y & 63) == 0;
        for (int c = 0; c < body; c += XV_W) {
            xv u = xv_mul(xv_sub(xv_load(t + c), m), rs);
            u = xv_fma(u, xv_load(a->gamma + c), xv_load(a->beta + c));
            if (stream)
                xv_stream(y + c, u);
            else
                xv_store(y + c, u);
        }
        if (tail) {
            xv u = xv_mul(xv_sub(xv_load_tail(t + body, tail, 0.0f), m), rs);
            xv_store_tail(y + body, xv_fma(u, xv_load_tail(a->gamma + body, tail, 0.0f),
                                           xv_load_tail(a->beta + body, tail, 0.0f)), tail);
        }
    }
    _mm_sfence(); // streaming stores are weakly ordered: publish them
}

// x, r, y are (rows,d); ctx is a scratch row of d floats.
void XF_FN(add_layernorm_run)(const void *args, void *ctx)
{
    const xf_add_layernorm_args *a = args;
    XF_FN(add_layernorm_rows)(a, 0, a->rows, ctx,
                              xf_stream_output(3 * (size_t)a->rows * a->d * sizeof(float))); // x, r, y
}

int XF_FN(add_layernorm_prepare)(const void *args, void **ctx)
{
    const xf_add_layernorm_args *a = args;
    *ctx = aligned_alloc(64, ((size_t)a->d * sizeof(float) + 63) / 64 * 64 + 64);
    return *ctx ? 0 : -1;
}

void XF_FN(add_layernorm_release)(void *ctx) { free(ctx); }
