// fp64 reference of generation (kernels/decode.h): the full pass's
// reference, then the logits. The decode step's is with the layers'
// (kernels/layers_ref.c).
#include "decode.h"
#include "errmodel.h"
#include "linear.h"

// Teacher-forced generation computes what the full pass computes for the
// given target tokens (the decoder causal; trailing target padding hides
// no key from a real row); the logits are a bias-free linear of its output
// with the tied table.
void xf_ref_generate_d(const xf_generate_args *a, double math_ulp, double *memory, double *memvar,
                       double *y, double *yvar, double *logits, double *logitvar)
{
    const int d = a->heads * a->dk, rows = a->batch * a->steps;
    const xf_forward_args f = xf_forward_of_generate(a);
    xf_ref_forward_d(&f, math_ulp, memory, memvar, y, yvar);
    if (!a->logits) return;
    xf_ref_linear_d(rows, a->vocab, d, y, yvar, a->tgt_table, NULL, 0, logits, logitvar, NULL);
    xf_var_stored(a->dtype, logits, logitvar, (size_t)rows * a->vocab);
}
