// add_layernorm: y = LayerNorm(x + r) * gamma + beta over the last dimension,
// eps = 1e-5 inside the square root, biased variance (PyTorch's LayerNorm,
// the "Add & Norm" of the post-LN Transformer).
#ifndef XF_ADD_LAYERNORM_H
#define XF_ADD_LAYERNORM_H

#include "xf_common.h"

typedef struct {
    int rows, d;
    const float *x;     // x is (rows,d)
    const float *r;     // r is (rows,d), the residual branch
    const float *gamma; // gamma is (d)
    const float *beta;  // beta is (d)
    float *y;           // y is (rows,d); must not alias x or r
    // dtype XF_BF16: x, r, gamma, beta also as bf16 (the fields above then
    // hold the same values widened), and the output is y16 (rows,d) bf16.
    xf_dtype dtype;
    const xf_bf16 *x16, *r16, *gamma16, *beta16;
    xf_bf16 *y16;
} xf_add_layernorm_args;

// Per element: add, subtract mean, square and accumulate, mean accumulate,
// normalise, scale, shift (8 flops).
static inline double xf_add_layernorm_flops(const xf_add_layernorm_args *a)
{
    return 8.0 * a->rows * a->d;
}

static inline double xf_add_layernorm_bytes(const xf_add_layernorm_args *a)
{
    return (double)xf_dtype_size(a->dtype) * (3.0 * a->rows * a->d + 2.0 * a->d);
}

// fp64 core on fp64 x and r; *var arrays: error model (errmodel.h), NULL to
// skip; bound, if not NULL: the componentwise bound (add_layernorm_ref.c).
// math_ulp: the variant's sqrt/rsqrt error in ulps.
void xf_ref_add_layernorm_d(int rows, int d, const double *x, const double *r,
                            const double *xvar, const double *rvar, const float *gamma,
                            const float *beta, double math_ulp, double *y, double *yvar,
                            double *bound);

// The stage as an fp32 variant sees it: reference and bound.
void xf_ref_add_layernorm(const xf_add_layernorm_args *a, double math_ulp, double *y_ref,
                          double *bound);

#endif
