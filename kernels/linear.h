// linear: Y = X W^T + b, optionally followed by ReLU (PyTorch's nn.Linear).
// Serves the packed QKV projection, the attention output projection, FFN1
// (with ReLU) and FFN2.
#ifndef XF_LINEAR_H
#define XF_LINEAR_H

#include "xf_common.h"

typedef struct {
    int m, n, k;      // m rows (batch*seq), n outputs, k inputs
    const float *x;   // x is (m,k), row-major
    const float *w;   // w is (n,k): row j holds output j's weights, as PyTorch stores them
    const float *b;   // b is (n), or NULL for no bias
    int relu;         // 1: y = max(y, 0) after the bias
    float *y;         // y is (m,n), row-major; must not alias x
    // dtype XF_BF16: x, w and b also as bf16 (x, w, b above then hold the
    // same values widened, which the reference reads), and the output is
    // y16, (m,n) bf16 (y unused).
    xf_dtype dtype;
    const xf_bf16 *x16, *w16, *b16;
    xf_bf16 *y16;
} xf_linear_args;

static inline double xf_linear_flops(const xf_linear_args *a)
{
    return 2.0 * a->m * a->n * a->k + (a->b ? (double)a->m * a->n : 0.0);
}

// Compulsory traffic: read x, w, b once, write y once, in the dtype's size.
static inline double xf_linear_bytes(const xf_linear_args *a)
{
    return (double)xf_dtype_size(a->dtype) *
           ((double)a->m * a->k + (double)a->n * a->k + (a->b ? a->n : 0) + (double)a->m * a->n);
}

// fp64 reference on fp64 activations. xvar/yvar carry the error-model
// variance (kernels/errmodel.h), both NULL to skip it; bound, if not NULL,
// receives the componentwise bound |y - y_ref| <= bound that any fp32
// variant must meet (derivation in linear_ref.c).
void xf_ref_linear_d(int m, int n, int k, const double *x, const double *xvar,
                     const float *w, const float *b, int relu, double *y, double *yvar,
                     double *bound);

// The same by the plain loops of linear_ref.c (the specification), and by
// linear_fast.c (blocked and threaded: gemm_d.h); xf_ref_linear_d calls
// one of them (xf_ref_plain()).
void xf_ref_linear_plain_d(int m, int n, int k, const double *x, const double *xvar, const float *w, const float *b,
                           int relu, double *y, double *yvar, double *bound);
void xf_ref_linear_fast_d(int m, int n, int k, const double *x, const double *xvar, const float *w, const float *b,
                          int relu, double *y, double *yvar, double *bound);

// The stage as an fp32 variant sees it: reference and bound.
void xf_ref_linear(const xf_linear_args *a, double *y_ref, double *bound);

#endif
