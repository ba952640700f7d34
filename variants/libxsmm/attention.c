// libxsmm attention, three passes per (batch, head), the scores S
// materialised (seq_q x seq_k):
//   S = Q K^T: in libxsmm's terms S^T (sk x sq) = K (sk x dk) Q^T (dk x sq);
//     K arrives as K^T there, so it is packed transposed, (dk, sk)
//     row-major, per head (libxsmm takes no transposed A);
//   the scaled, masked softmax of each row of S: our SIMD kernel (libxsmm
//     1.17's eltwise kernels have no masked softmax);
//   O = P V: O^T (dk x sq) = V^T (dk x sk) P^T (sk x sq), where V^T in
//     column-major is V itself with its row stride: no packing; the
//     batch-reduce runs over key blocks of 64.
#include <math.h>
#include <stdlib.h>

#include "xsmm.h"
#include "../isa/huge.h"

typedef struct {
    xf_xsmm_plan qk, pv;
    float *kt, *s; // kt is (dk,sk), s is (sq,sk)
    const xf_simd_kernels *simd;
} attention_ctx;

void xf_xsmm_attention_release(void *ctx)
{
    attention_ctx *c = ctx;
    if (c) free(c->kt), free(c->s);
    free(c);
}

int xf_xsmm_attention_prepare(const void *args, void **ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->simd = xf_simd_widest_kernels();
    c->kt = xf_alloc_lines((size_t)a->dk * a->seq_k * sizeof(float) + 64);
    c->s = xf_alloc_lines((size_t)a->seq_q * a->seq_k * sizeof(float) + 64);
    if (!c->simd || !c->kt || !c->s ||
        xf_xsmm_plan_make(&c->qk, a->seq_k, a->seq_q, a->dk, a->seq_k, XF_XSMM_BM, a->ldq, a->seq_k) != 0 ||
        xf_xsmm_plan_make(&c->pv, a->dk, a->seq_q, a->seq_k, a->ldv, XF_XSMM_BM, a->seq_k, a->ldo) != 0) {
        xf_xsmm_attention_release(c);
        return -1;
    }
    *ctx = c;
    return 0;
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk)
void xf_xsmm_attention_run(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    const attention_ctx *c = ctx;
    const float scale = 1.0f / sqrtf((float)a->dk);
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++) {
            const xf_attention_head x = xf_attention_head_at(a, b, h);
            // K^T by libxsmm's own transpose (column-major: K is dk x seq_k
            // with leading dimension ldk, K^T seq_k x dk with seq_k).
            libxsmm_otrans(c->kt, x.k, sizeof(float), a->dk, a->seq_k, a->ldk, a->seq_k);
            for (int s = 0; s < xf_xsmm_plan_slices(&c->qk); s++)
                for (int j0 = 0; j0 < a->seq_q; j0 += XF_XSMM_BN)
                    for (int i0 = 0; i0 < a->seq_k; i0 += XF_XSMM_BM)
                        xf_xsmm_plan_tile(&c->qk, c->kt, x.q, c->s, i0, j0, s);
            for (int i = 0; i < a->seq_q; i++)
                c->simd->softmax_row(a->seq_k, c->s + (size_t)i * a->seq_k, scale, pad, a->causal, i);
            // Key slices outermost: a slice of V (kc keys) stays in L2 for
            // every query tile.
            for (int s = 0; s < xf_xsmm_plan_slices(&c->pv); s++)
                for (int j0 = 0; j0 < a->seq_q; j0 += XF_XSMM_BN)
                    for (int i0 = 0; i0 < a->dk; i0 += XF_XSMM_BM)
                        xf_xsmm_plan_tile(&c->pv, x.v, c->s, x.out, i0, j0, s);
        }
    }
}
