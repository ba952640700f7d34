#include <math.h>

#include "naive.h"

// x, y are (rows,d): the mean of squares, then one scale per element.
void xf_naive_rmsnorm_eps(const xf_rmsnorm_args *a, float eps)
{
    for (int i = 0; i < a->rows; i++) {
        const float *x = a->x + (size_t)i * a->d;
        float *y = a->y + (size_t)i * a->d;
        float sum_sq = 0.0f;
        for (int c = 0; c < a->d; c++) sum_sq += x[c] * x[c];
        const float rrms = 1.0f / sqrtf(sum_sq / (float)a->d + eps);
        for (int c = 0; c < a->d; c++) y[c] = x[c] * rrms * a->gamma[c];
    }
}

void xf_naive_rmsnorm(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_rmsnorm_eps(args, XF_RMS_EPS);
}
