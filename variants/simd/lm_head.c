// lm_head as this family's linear: the embedding table is (vocab,d), a
// PyTorch weight's layout, so the tied head is a bias-free linear with the
// table as its weight (packed as B^T once in prepare for the GEMM, read as
// it is by a decode step's few rows).
#include "simd.h"

// x is (rows,d), table is (vocab,d), logits are (rows,vocab)
void XF_FN(lm_head_run)(const void *args, void *ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    XF_FN(linear_run)(&l, ctx);
}

int XF_FN(lm_head_prepare)(const void *args, void **ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    return XF_FN(linear_prepare)(&l, ctx);
}

void XF_FN(lm_head_release)(void *ctx) { XF_FN(linear_release)(ctx); }
