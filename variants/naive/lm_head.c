#include "naive.h"

// x is (rows,d), table is (vocab,d), logits are (rows,vocab): one dot
// product per logit, summed in index order.
void xf_naive_lm_head(const void *args, void *ctx)
{
    (void)ctx;
    const xf_lm_head_args *a = args;
    for (int i = 0; i < a->rows; i++)
        for (int t = 0; t < a->vocab; t++) {
            const float *x = a->x + (size_t)i * a->d_model, *e = a->table + (size_t)t * a->d_model;
            float acc = 0.0f;
            for (int p = 0; p < a->d_model; p++) acc += x[p] * e[p];
            a->logits[(size_t)i * a->vocab + t] = acc;
        }
}
