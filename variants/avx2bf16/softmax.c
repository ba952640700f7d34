// bf16 softmax on any AVX2 CPU: each row of bf16 scores widened into an
// fp32 row that stays in L1, the avx2 family's masked, scaled softmax row
// on it (variants/simd/softmax.c, through its kernel table), the
// probabilities rounded to bf16 on the way out: half the bytes of fp32's.
#include <stdlib.h>

#include "../../kernels/half.h"
#include "../simd/kernel_table.h"
#include "bf16.h"
#include "family.h"

int xf_avx2bf16_softmax_prepare(const void *args, void **ctx)
{
    const xf_softmax_args *a = args;
    *ctx = malloc(((size_t)a->seq_k + 8) * sizeof(float)); // one row
    return *ctx ? 0 : -1;
}

void xf_avx2bf16_softmax_release(void *ctx) { free(ctx); }

// x and y are (batch,heads,seq_q,seq_k) bf16; ctx is a row of seq_k floats
void xf_avx2bf16_softmax_run(const void *args, void *ctx)
{
    const xf_softmax_args *a = args;
    float *t = ctx;
    const int n = a->seq_k;
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * n : NULL;
        for (int r = 0; r < a->heads * a->seq_q; r++) {
            const size_t row = ((size_t)b * a->heads * a->seq_q + r) * n;
            const xf_bf16 *x = a->x16 + row;
            xf_bf16 *y = a->y16 + row;
            int j = 0;
            for (; j + 8 <= n; j += 8) _mm256_storeu_ps(t + j, xf_bf16x8_load(x + j));
            for (; j < n; j++) t[j] = xf_bf16_to_f32(x[j]);
            xf_avx2_kernels.softmax_row(n, t, a->scale, pad, a->causal, r % a->seq_q);
            for (j = 0; j + 8 <= n; j += 8) _mm_storeu_si128((__m128i *)(y + j), xf_bf16x8_round(_mm256_loadu_ps(t + j)));
            for (; j < n; j++) y[j] = xf_bf16_from_f32(t[j]);
        }
    }
}
