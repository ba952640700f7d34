#include <math.h>
#include <stdlib.h>

#include "naive.h"

// q is (B,Sq,H*dk), k and v are (B,Sk,H*dk), each with its row stride;
// out is (B,Sq,H*dk). Per batch, head and query row: the scores row, its
// masked softmax, then the probability-weighted sum of V rows.
void xf_naive_attention(const void *args, void *ctx)
{
    (void)ctx;
    const xf_attention_args *a = args;
    const float scale = 1.0f / sqrtf((float)a->dk);
    float *p = malloc((size_t)a->seq_k * sizeof *p);
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++)
            for (int i = 0; i < a->seq_q; i++) {
                const float *q = a->q + ((size_t)b * a->seq_q + i) * a->ldq + (size_t)h * a->dk;
                for (int j = 0; j < a->seq_k; j++) {
                    const float *k = a->k + (b * xf_attention_kv_rows(a) + j) * a->ldk + (size_t)h * a->dk;
                    float dot = 0.0f;
                    for (int d = 0; d < a->dk; d++) dot += q[d] * k[d];
                    p[j] = dot * scale;
                }
                xf_naive_softmax_row(a->seq_k, p, pad, a->causal, i);
                float *out = a->out + ((size_t)b * a->seq_q + i) * a->ldo + (size_t)h * a->dk;
                for (int d = 0; d < a->dk; d++) {
                    float acc = 0.0f;
                    for (int j = 0; j < a->seq_k; j++)
                        acc += p[j] * a->v[(b * xf_attention_kv_rows(a) + j) * a->ldv + (size_t)h * a->dk + d];
                    out[d] = acc;
                }
            }
    }
    free(p);
}
