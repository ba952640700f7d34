// bf16 softmax with fp32 arithmetic (bf16fma.h): each row of bf16 scores
// widened into an fp32 row that stays in L1, the fp32 family's masked,
// scaled softmax row on it (variants/simd/softmax.c, through its kernel
// table), the probabilities rounded to bf16 on the way out: half the
// bytes of fp32's.
#include <stdlib.h>

#include "bf16fma.h"
#include "../isa/huge.h"

int XF_BF_FN(softmax_prepare)(const void *args, void **ctx)
{
    const xf_softmax_args *a = args;
    *ctx = xf_alloc_lines(((size_t)a->seq_k + XV_W) * sizeof(float)); // one row
    return *ctx ? 0 : -1;
}

void XF_BF_FN(softmax_release)(void *ctx) { free(ctx); }

// x and y are (batch,heads,seq_q,seq_k) bf16; ctx is a row of seq_k floats
void XF_BF_FN(softmax_run)(const void *args, void *ctx)
{
    const xf_softmax_args *a = args;
    float *t = ctx;
    const int n = a->seq_k;
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * n : NULL;
        for (int r = 0; r < a->heads * a->seq_q; r++) {
            const size_t row = ((size_t)b * a->heads * a->seq_q + r) * n;
            xf_bf16_widen_rows(a->x16 + row, 0, 1, n, t, 0);
            XF_FN(kernels).softmax_row(n, t, a->scale, pad, a->causal, r % a->seq_q);
            xf_bf16_round_rows(t, 0, 1, n, a->y16 + row, 0);
        }
    }
}
