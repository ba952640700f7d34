// Three-pass attention per batch and head: S = Q K^T with the GEMM (K packed
// as B^T), the masked scaled softmax of each row of S in place, then
// O = P V with the GEMM (V packed). Materialises the seq_q x seq_k scores.
#include <math.h>
#include <stdlib.h>

#include "simd.h"
#include "../isa/huge.h"

typedef struct {
    float *s, *kp, *vp;
} attention3_ctx;

void XF_FN(attention3_release)(void *ctx)
{
    attention3_ctx *c = ctx;
    if (!c) return;
    free(c->s);
    free(c->kp);
    free(c->vp);
    free(c);
}

int XF_FN(attention3_prepare)(const void *args, void **ctx)
{
    const xf_attention_args *a = args;
    attention3_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->s = xf_alloc_lines((size_t)a->seq_q * a->seq_k * sizeof(float));
    c->kp = xf_alloc_lines(XF_FN(packed_b_floats)(a->seq_k, a->dk) * sizeof(float));
    c->vp = xf_alloc_lines(XF_FN(packed_b_floats)(a->dk, a->seq_k) * sizeof(float));
    if (!c->s || !c->kp || !c->vp) {
        XF_FN(attention3_release)(c);
        return -1;
    }
    *ctx = c;
    return 0;
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk)
void XF_FN(attention3_run)(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    attention3_ctx *c = ctx;
    const float scale = 1.0f / sqrtf((float)a->dk);
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++) {
            const xf_attention_head x = xf_attention_head_at(a, b, h);
            XF_FN(pack_b_nk)(x.k, a->ldk, a->seq_k, a->dk, c->kp);
            XF_FN(gemm)(a->seq_q, a->seq_k, a->dk, x.q, a->ldq, c->kp, NULL, 0, c->s, a->seq_k);
            for (int i = 0; i < a->seq_q; i++)
                XF_FN(softmax_row)(a->seq_k, c->s + (size_t)i * a->seq_k, scale, pad, a->causal, i);
            XF_FN(pack_b_kn)(x.v, a->ldv, a->seq_k, a->dk, c->vp);
            XF_FN(gemm)(a->seq_q, a->dk, a->seq_k, c->s, a->seq_k, c->vp, NULL, 0, x.out, a->ldo);
        }
    }
}
