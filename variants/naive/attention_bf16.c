#include <math.h>
#include <stdlib.h>

#include "../../kernels/half.h"
#include "naive.h"

// q is (B,Sq,H*dk), k and v are (B,Sk,H*dk), each with its row stride;
// out is (B,Sq,H*dk); all bf16. As the fp32 naive attention, every term
// widened to fp32 where it is read: scores, their softmax and the weighted
// V sum in fp32, the output rounded to bf16 once.
void xf_naive_attention_bf16(const void *args, void *ctx)
{
    (void)ctx;
    const xf_attention_args *a = args;
    const float scale = 1.0f / sqrtf((float)a->dk);
    const size_t kv_rows = xf_attention_kv_rows(a);
    float *p = malloc((size_t)a->seq_k * sizeof *p);
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++)
            for (int i = 0; i < a->seq_q; i++) {
                const xf_bf16 *q = a->q16 + ((size_t)b * a->seq_q + i) * a->ldq + (size_t)h * a->dk;
                for (int j = 0; j < a->seq_k; j++) {
                    const xf_bf16 *k = a->k16 + (b * kv_rows + j) * a->ldk + (size_t)h * a->dk;
                    float dot = 0.0f;
                    for (int d = 0; d < a->dk; d++) dot += xf_bf16_to_f32(q[d]) * xf_bf16_to_f32(k[d]);
                    p[j] = dot * scale;
                }
                xf_naive_softmax_row(a->seq_k, p, pad, a->causal, i);
                xf_bf16 *out = a->out16 + ((size_t)b * a->seq_q + i) * a->ldo + (size_t)h * a->dk;
                for (int d = 0; d < a->dk; d++) {
                    float acc = 0.0f;
                    for (int j = 0; j < a->seq_k; j++)
                        acc += p[j] * xf_bf16_to_f32(a->v16[(b * kv_rows + j) * a->ldv + (size_t)h * a->dk + d]);
                    out[d] = xf_bf16_from_f32(acc);
                }
            }
    }
    free(p);
}
