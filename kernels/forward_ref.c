#include <stdlib.h>
#include <string.h>

#include "add_layernorm.h"
#include "errmodel.h"
#include "forward.h"

// The stack's input: embedded ids, or the given embedded sequence (exact,
// so its variance is 0).
static void embed_with_var(const xf_forward_args *a, int seq, const int32_t *ids,
                           const float *table, const float *x, double math_ulp, double **val,
                           double **var)
{
    const int d = a->heads * a->dk;
    size_t count = (size_t)a->batch * seq * d;
    *var = calloc(count, sizeof(double));
    if (!ids) {
        *val = xf_widen(x, count);
        return;
    }
    *val = malloc(count * sizeof(double));
    xf_embed_args e = {.batch = a->batch, .seq = seq, .d_model = d, .vocab = a->vocab,
                       .ids = ids, .table = table};
    xf_ref_embed(&e, math_ulp, *val, NULL, *var);
    xf_var_stored(a->dtype, *val, *var, count);
}

// In place: x <- LayerNorm(x) (no residual), for the optional final norms.
static void final_norm(int rows, int d, const xf_norm_weights *n, double math_ulp, xf_dtype dt, double *x,
                       double *xvar)
{
    size_t count = (size_t)rows * d;
    double *zero = calloc(count, sizeof(double));
    double *y = malloc(count * sizeof(double)), *yvar = malloc(count * sizeof(double));
    xf_ref_add_layernorm_d(rows, d, x, zero, xvar, zero, n->gamma, n->beta, math_ulp, y, yvar,
                           NULL);
    xf_var_stored(dt, y, yvar, count);
    memcpy(x, y, count * sizeof(double));
    memcpy(xvar, yvar, count * sizeof(double));
    free(zero);
    free(y);
    free(yvar);
}

// Rows at padded positions are zero with zero variance (the contract,
// docs/design.md, Masking): after the final norm, which would map them to
// beta.
static void zero_padded(double *val, double *var, const uint8_t *pad, size_t rows, int d)
{
    for (size_t r = 0; pad && r < rows; r++)
        if (pad[r]) {
            memset(val + r * d, 0, (size_t)d * sizeof(double));
            memset(var + r * d, 0, (size_t)d * sizeof(double));
        }
}

// Each layer reads its input buffer and writes the other one, so the
// activations stay in two buffers however many layers there are.
void xf_ref_forward_d(const xf_forward_args *a, double math_ulp, double *memory,
                      double *memvar, double *y, double *yvar)
{
    const int d = a->heads * a->dk;
    const size_t src_count = (size_t)a->batch * a->seq_s * d;
    const size_t tgt_count = (size_t)a->batch * a->seq_t * d;
    double *x, *xvar;

    embed_with_var(a, a->seq_s, a->src_ids, a->src_table, a->src_x, math_ulp, &x, &xvar);
    for (int l = 0; l < a->enc_layers; l++) {
        xf_encoder_layer_args e = {.batch = a->batch, .seq = a->seq_s, .heads = a->heads,
                                   .dk = a->dk, .d_ff = a->d_ff, .src_pad = a->src_pad,
                                   .w = &a->enc[l], .dtype = a->dtype};
        xf_ref_encoder_layer_d(&e, x, xvar, math_ulp, memory, memvar);
        memcpy(x, memory, src_count * sizeof(double));
        memcpy(xvar, memvar, src_count * sizeof(double));
    }
    if (a->enc_norm.gamma) final_norm(a->batch * a->seq_s, d, &a->enc_norm, math_ulp, a->dtype, x, xvar);
    zero_padded(x, xvar, a->src_pad, (size_t)a->batch * a->seq_s, d);
    memcpy(memory, x, src_count * sizeof(double));
    memcpy(memvar, xvar, src_count * sizeof(double));
    free(x);
    free(xvar);

    embed_with_var(a, a->seq_t, a->tgt_ids, a->tgt_table, a->tgt_x, math_ulp, &x, &xvar);
    for (int l = 0; l < a->dec_layers; l++) {
        xf_decoder_layer_args dl = {.batch = a->batch, .seq_t = a->seq_t, .seq_s = a->seq_s,
                                    .heads = a->heads, .dk = a->dk, .d_ff = a->d_ff,
                                    .tgt_pad = a->tgt_pad, .src_pad = a->src_pad,
                                    .w = &a->dec[l], .dtype = a->dtype};
        xf_ref_decoder_layer_d(&dl, x, xvar, memory, memvar, math_ulp, y, yvar);
        memcpy(x, y, tgt_count * sizeof(double));
        memcpy(xvar, yvar, tgt_count * sizeof(double));
    }
    if (a->dec_norm.gamma) final_norm(a->batch * a->seq_t, d, &a->dec_norm, math_ulp, a->dtype, x, xvar);
    zero_padded(x, xvar, a->tgt_pad, (size_t)a->batch * a->seq_t, d);
    memcpy(y, x, tgt_count * sizeof(double));
    memcpy(yvar, xvar, tgt_count * sizeof(double));
    free(x);
    free(xvar);
}
