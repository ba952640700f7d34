#include "naive.h"

// x is (m,k), w is (n,k), y is (m,n): one dot product per output, summed in
// index order, as the formula reads.
void xf_naive_linear(const void *args, void *ctx)
{
    (void)ctx;
    const xf_linear_args *a = args;
    for (int i = 0; i < a->m; i++)
        for (int j = 0; j < a->n; j++) {
            const float *x = a->x + (size_t)i * a->k, *w = a->w + (size_t)j * a->k;
            float acc = 0.0f;
            for (int p = 0; p < a->k; p++) acc += x[p] * w[p];
            if (a->b) acc += a->b[j];
            if (a->relu && acc < 0.0f) acc = 0.0f;
            a->y[(size_t)i * a->n + j] = acc;
        }
}
