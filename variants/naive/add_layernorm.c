#include <math.h>

#include "naive.h"

// x, r, y are (rows,d): two passes over v = x + r, mean then variance.
void xf_naive_add_layernorm_eps(const xf_add_layernorm_args *a, float eps)
{
    for (int i = 0; i < a->rows; i++) {
        const float *x = a->x + (size_t)i * a->d, *r = a->r + (size_t)i * a->d;
        float *y = a->y + (size_t)i * a->d;
        float mean = 0.0f, var = 0.0f;
        for (int c = 0; c < a->d; c++) mean += x[c] + r[c];
        mean /= (float)a->d;
        for (int c = 0; c < a->d; c++) {
            float cen = x[c] + r[c] - mean;
            var += cen * cen;
        }
        var /= (float)a->d;
        const float rstd = 1.0f / sqrtf(var + eps);
        for (int c = 0; c < a->d; c++) y[c] = (x[c] + r[c] - mean) * rstd * a->gamma[c] + a->beta[c];
    }
}

void xf_naive_add_layernorm(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_add_layernorm_eps(args, XF_LN_EPS);
}
