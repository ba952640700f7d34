#include <stdlib.h>

#include "../../kernels/half.h"
#include "naive.h"

// x and y are (batch,heads,seq_q,seq_k) bf16: each row widened and scaled
// into an fp32 row, the naive softmax row in fp32, each probability rounded
// once. The mutants (variants/mutant) call it with the rounding broken.
void xf_naive_softmax_bf16_with(const xf_softmax_args *a, xf_naive_bf16_bug bug)
{
    float *t = malloc(((size_t)a->seq_k + 1) * sizeof *t);
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++)
            for (int i = 0; i < a->seq_q; i++) {
                size_t row = (((size_t)b * a->heads + h) * a->seq_q + i) * a->seq_k;
                for (int j = 0; j < a->seq_k; j++) t[j] = a->scale * xf_bf16_to_f32(a->x16[row + j]);
                xf_naive_softmax_row(a->seq_k, t, pad, a->causal, i);
                for (int j = 0; j < a->seq_k; j++) a->y16[row + j] = xf_naive_store_bf16(t[j], bug);
            }
    }
    free(t);
}

void xf_naive_softmax_bf16(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_softmax_bf16_with(args, XF_BF16_CORRECT);
}
