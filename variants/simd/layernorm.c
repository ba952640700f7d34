// Add & LayerNorm per row: v = x + r written to y while summing, then the
// variance around the mean from y, then normalise y in place. A row (d_model
// floats) stays in L1 between passes: one read of x and r, one write of y.
#include <math.h>

#include "simd.h"

// x, r, y are (rows,d)
void XF_FN(add_layernorm_run)(const void *args, void *ctx)
{
    (void)ctx;
    const xf_add_layernorm_args *a = args;
    const int d = a->d, tail = d % XV_W, body = d - tail;
    for (int i = 0; i < a->rows; i++) {
        const float *x = a->x + (size_t)i * d, *r = a->r + (size_t)i * d;
        float *y = a->y + (size_t)i * d;
        xv vs = xv_zero();
        for (int c = 0; c < body; c += XV_W) {
            xv v = xv_add(xv_load(x + c), xv_load(r + c));
            xv_store(y + c, v);
            vs = xv_add(vs, v);
        }
        if (tail) {
            xv v = xv_add(xv_load_tail(x + body, tail, 0.0f), xv_load_tail(r + body, tail, 0.0f));
            xv_store_tail(y + body, v, tail);
            vs = xv_add(vs, v);
        }
        const float mean = xv_hsum(vs) / (float)d;
        const xv m = xv_set1(mean);
        xv vv = xv_zero();
        for (int c = 0; c < body; c += XV_W) {
            xv t = xv_sub(xv_load(y + c), m);
            vv = xv_fma(t, t, vv);
        }
        if (tail) { // lanes past the row hold mean, contributing 0
            xv t = xv_sub(xv_load_tail(y + body, tail, mean), m);
            vv = xv_fma(t, t, vv);
        }
        const float rstd = 1.0f / sqrtf(xv_hsum(vv) / (float)d + XF_LN_EPS);
        const xv rs = xv_set1(rstd);
        for (int c = 0; c < body; c += XV_W) {
            xv t = xv_mul(xv_sub(xv_load(y + c), m), rs);
            xv_store(y + c, xv_fma(t, xv_load(a->gamma + c), xv_load(a->beta + c)));
        }
        if (tail) {
            xv t = xv_mul(xv_sub(xv_load_tail(y + body, tail, 0.0f), m), rs);
            xv_store_tail(y + body, xv_fma(t, xv_load_tail(a->gamma + body, tail, 0.0f),
                                           xv_load_tail(a->beta + body, tail, 0.0f)), tail);
        }
    }
}
