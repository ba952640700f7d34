#include <math.h>

#include "../../kernels/half.h"
#include "naive.h"

// ids is (batch,seq), table is (vocab,d_model) bf16, y is (batch,seq,d_model)
// bf16: as the fp32 naive embed, the table entry widened, the sum rounded.
// The mutants (variants/mutant) call it with the rounding broken.
void xf_naive_embed_bf16_with(const xf_embed_args *a, xf_naive_bf16_bug bug)
{
    const float scale = sqrtf((float)a->d_model);
    for (int b = 0; b < a->batch; b++)
        for (int s = 0; s < a->seq; s++) {
            const xf_bf16 *row = a->table16 + (size_t)a->ids[b * a->seq + s] * a->d_model;
            xf_bf16 *y = a->y16 + ((size_t)b * a->seq + s) * a->d_model;
            for (int c = 0; c < a->d_model; c++) {
                float w = powf(10000.0f, -(float)(c & ~1) / (float)a->d_model);
                float angle = (float)(a->pos0 + s) * w;
                float pe = (c % 2 == 0) ? sinf(angle) : cosf(angle);
                y[c] = xf_naive_store_bf16(xf_bf16_to_f32(row[c]) * scale + pe, bug);
            }
        }
}

void xf_naive_embed_bf16(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_embed_bf16_with(args, XF_BF16_CORRECT);
}
