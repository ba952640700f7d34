// lm_head as the SIMD GEMM: the embedding table is (vocab,d), a PyTorch
// weight's layout, so it packs as B^T once in prepare; no bias, no ReLU.
#include <stdlib.h>

#include "simd.h"

// x is (rows,d), table is (vocab,d), logits are (rows,vocab); ctx is the
// packed table.
void XF_FN(lm_head_run)(const void *args, void *ctx)
{
    const xf_lm_head_args *a = args;
    XF_FN(gemm)(a->rows, a->vocab, a->d_model, a->x, a->d_model, ctx, NULL, 0, a->logits, a->vocab);
}

int XF_FN(lm_head_prepare)(const void *args, void **ctx)
{
    const xf_lm_head_args *a = args;
    // As linear_prepare: whole 64-byte lines, and one more.
    float *bp =
        aligned_alloc(64, (XF_FN(packed_b_floats)(a->vocab, a->d_model) * sizeof(float) + 63) / 64 * 64 + 64);
    if (!bp) return -1;
    XF_FN(pack_b_nk)(a->table, a->d_model, a->vocab, a->d_model, bp);
    *ctx = bp;
    return 0;
}

void XF_FN(lm_head_release)(void *ctx) { free(ctx); }
