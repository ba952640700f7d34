#include <math.h>

#include "naive.h"

// ids is (batch,seq), table is (vocab,d_model), y is (batch,seq,d_model)
void xf_naive_embed(const void *args, void *ctx)
{
    (void)ctx;
    const xf_embed_args *a = args;
    const float scale = sqrtf((float)a->d_model);
    for (int b = 0; b < a->batch; b++)
        for (int s = 0; s < a->seq; s++) {
            const float *row = a->table + (size_t)a->ids[b * a->seq + s] * a->d_model;
            float *y = a->y + ((size_t)b * a->seq + s) * a->d_model;
            for (int c = 0; c < a->d_model; c++) {
                float w = powf(10000.0f, -(float)(c & ~1) / (float)a->d_model);
                float angle = (float)(a->pos0 + s) * w;
                float pe = (c % 2 == 0) ? sinf(angle) : cosf(angle);
                y[c] = row[c] * scale + pe;
            }
        }
}
