// rmsnorm: y = x / sqrt(mean(x^2) + eps) * gamma over the last dimension,
// eps = 1e-6 inside the square root (the RMSNorm of Zhang and Sennrich,
// 2019, as LLaMA applies it: no mean subtracted, no bias).
#ifndef XF_RMSNORM_H
#define XF_RMSNORM_H

#include "xf_common.h"

// Epsilon fixed by the contract (LLaMA's).
#define XF_RMS_EPS 1e-6f

typedef struct {
    int rows, d;
    const float *x;     // x is (rows,d)
    const float *gamma; // gamma is (d)
    float *y;           // y is (rows,d); must not alias x
} xf_rmsnorm_args;

// Per element: square and accumulate, scale by 1/rms, scale by gamma
// (4 flops).
static inline double xf_rmsnorm_flops(const xf_rmsnorm_args *a) { return 4.0 * a->rows * a->d; }

static inline double xf_rmsnorm_bytes(const xf_rmsnorm_args *a)
{
    return 4.0 * (2.0 * a->rows * a->d + a->d);
}

// The reference and its componentwise bound (rmsnorm_ref.c); math_ulp:
// the variant's sqrt/rsqrt error in ulps.
void xf_ref_rmsnorm(const xf_rmsnorm_args *a, double math_ulp, double *y_ref, double *bound);

#endif
