#include <stdlib.h>

#include "linear.h"
#include "lm_head.h"

// x is (rows,d), table is (vocab,d), logits are (rows,vocab): the linear
// reference with W = table and no bias, so the bound is the linear's,
// gamma(d+1) sum |x e| + u |logit| + tiny (derivation in linear_ref.c).
void xf_ref_lm_head(const xf_lm_head_args *a, double *ref, double *bound)
{
    double *x = xf_widen(a->x, (size_t)a->rows * a->d_model);
    xf_ref_linear_d(a->rows, a->vocab, a->d_model, x, NULL, a->table, NULL, 0, ref, NULL, bound);
    // bf16: fp32 accumulation of bf16 terms, each logit rounded once
    if (bound && a->dtype == XF_BF16) xf_bound_bf16_output(bound, ref, (size_t)a->rows * a->vocab);
    free(x);
}
