// RMSNorm per row: one pass summing squares, one scaling x into y. The row
// is read twice, the second time from L1 (a row of d floats is a few KiB);
// y goes out by streaming stores when the call's working set is over the
// streaming threshold (kernel_table.h) and its row vector-aligned, as in
// add_layernorm.
#include <math.h>
#include <stdint.h>

#include "simd.h"

// Rows r0..r1 of x and y. big: write y by streaming stores (the caller
// decides from the whole call's size).
void XF_FN(rmsnorm_rows)(const xf_rmsnorm_args *a, int r0, int r1, int big)
{
    const int d = a->d, tail = d % XV_W, body = d - tail;
    for (int i = r0; i < r1; i++) {
        const float *x = a->x + (size_t)i * d;
        float *y = a->y + (size_t)i * d;
        xv ss = xv_zero();
        for (int c = 0; c < body; c += XV_W) {
            xv v = xv_load(x + c);
            ss = xv_fma(v, v, ss);
        }
        if (tail) { // lanes past the row load 0, adding nothing
            xv v = xv_load_tail(x + body, tail, 0.0f);
            ss = xv_fma(v, v, ss);
        }
        const xv rs = xv_set1(1.0f / sqrtf(xv_hsum(ss) / (float)d + XF_RMS_EPS));
        const int stream = big && ((uintptr_t)y & 63) == 0;
        for (int c = 0; c < body; c += XV_W) {
            xv u = xv_mul(xv_mul(xv_load(x + c), rs), xv_load(a->gamma + c));
            if (stream)
                xv_stream(y + c, u);
            else
                xv_store(y + c, u);
        }
        if (tail)
            xv_store_tail(y + body,
                          xv_mul(xv_mul(xv_load_tail(x + body, tail, 0.0f), rs), xv_load_tail(a->gamma + body, tail, 0.0f)),
                          tail);
    }
    _mm_sfence(); // streaming stores are weakly ordered: publish them
}

// x, y are (rows,d)
void XF_FN(rmsnorm_run)(const void *args, void *ctx)
{
    (void)ctx;
    const xf_rmsnorm_args *a = args;
    XF_FN(rmsnorm_rows)(a, 0, a->rows, xf_stream_output(2 * (size_t)a->rows * a->d * sizeof(float))); // x, y
}

int XF_FN(rmsnorm_prepare)(const void *args, void **ctx)
{
    (void)args;
    *ctx = NULL; // nothing to pack, no scratch
    return 0;
}

void XF_FN(rmsnorm_release)(void *ctx) { (void)ctx; }
