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
    xf_forward_args f = {.batch = a->batch, .seq_s = a->seq_s, .seq_t = a->steps, .heads = a->heads,
                         .dk = a->dk, .d_ff = a->d_ff, .enc_layers = a->enc_layers,
                         .dec_layers = a->dec_layers, .vocab = a->vocab, .src_ids = a->src_ids,
                         .tgt_ids = a->tgt_ids, .src_table = a->src_table, .tgt_table = a->tgt_table,
                         .src_x = a->src_x, .tgt_x = a->tgt_x, .enc = a->enc, .dec = a->dec,
                         .enc_norm = a->enc_norm, .dec_norm = a->dec_norm, .src_pad = a->src_pad,
                         .tgt_pad = a->tgt_pad, .dtype = a->dtype};
    xf_ref_forward_d(&f, math_ulp, memory, memvar, y, yvar);
    if (!a->logits) return;
    xf_ref_linear_d(rows, a->vocab, d, y, yvar, a->tgt_table, NULL, 0, logits, logitvar, NULL);
    xf_var_stored(a->dtype, logits, logitvar, (size_t)rows * a->vocab);
}
