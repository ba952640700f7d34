// lm_head: logits = x E^T, the decoder's output scored against every token
// of the target embedding table E, which the paper ties to the embedding
// ("Attention Is All You Need", section 3.4: the same weight matrix in the
// embedding layers and the pre-softmax linear transformation). It is a
// bias-free linear whose weight is the embed stage's table; a stage of its
// own because its N is the vocabulary (32000 and more), and because
// token-by-token decoding runs it on a few rows, where it streams the whole
// table for each token.
#ifndef XF_LM_HEAD_H
#define XF_LM_HEAD_H

#include "linear.h"
#include "xf_common.h"

typedef struct {
    int rows, d_model, vocab;
    const float *x;     // x is (rows,d_model), row-major (the decoder's final-norm output)
    const float *table; // table is (vocab,d_model): row t is token t's embedding
    float *logits;      // logits is (rows,vocab); must not alias x
    // dtype XF_BF16: x and the table also as bf16 (x and table above then
    // hold the same values widened, which the reference reads); the output
    // is logits16 (logits unused).
    xf_dtype dtype;
    const xf_bf16 *x16, *table16;
    xf_bf16 *logits16;
} xf_lm_head_args;

static inline double xf_lm_head_flops(const xf_lm_head_args *a)
{
    return 2.0 * a->rows * a->d_model * a->vocab;
}

// Compulsory traffic: read x and the table once, write the logits once.
static inline double xf_lm_head_bytes(const xf_lm_head_args *a)
{
    return (double)xf_dtype_size(a->dtype) * ((double)a->rows * a->d_model + (double)a->vocab * a->d_model + (double)a->rows * a->vocab);
}

// The bias-free linear it is (W = the table), in either dtype: what the
// families' lm_head variants run.
static inline xf_linear_args xf_lm_head_as_linear(const xf_lm_head_args *a)
{
    return (xf_linear_args){.m = a->rows, .n = a->vocab, .k = a->d_model, .x = a->x, .w = a->table,
                            .y = a->logits, .dtype = a->dtype, .x16 = a->x16, .w16 = a->table16,
                            .y16 = a->logits16};
}

// fp64 reference and the componentwise bound any fp32 variant must meet
// (a dot product of length d_model: kernels/linear_ref.c).
void xf_ref_lm_head(const xf_lm_head_args *a, double *ref, double *bound);

#endif
