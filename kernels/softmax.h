// softmax: y = softmax(scale * x + mask) along each row, max-subtracted.
// The mask is the attention mask (xf_key_visible): key padding and an
// optional causal mask; masked entries are -inf before the softmax, so they
// come out exactly 0, and a row whose keys are all masked is all zeros.
#ifndef XF_SOFTMAX_H
#define XF_SOFTMAX_H

#include "xf_common.h"

typedef struct {
    int batch, heads, seq_q, seq_k;
    float scale;
    const uint8_t *key_pad; // key_pad is (batch,seq_k), 1 = padding; or NULL
    int causal;
    const float *x;         // x is (batch,heads,seq_q,seq_k)
    float *y;               // y is (batch,heads,seq_q,seq_k); must not alias x
    // dtype XF_BF16: x also as bf16 (x above then holds the same values
    // widened, which the reference reads); the output is y16 (y unused).
    // The softmax itself is computed in fp32, the result rounded once.
    xf_dtype dtype;
    const xf_bf16 *x16;
    xf_bf16 *y16;
} xf_softmax_args;

// Per element: scale, subtract max, exp, sum, divide (max and compare not
// counted), as oneDNN's benchdnn counts softmax.
static inline double xf_softmax_flops(const xf_softmax_args *a)
{
    return 5.0 * a->batch * a->heads * a->seq_q * a->seq_k;
}

static inline double xf_softmax_bytes(const xf_softmax_args *a)
{
    double n = (double)a->batch * a->heads * a->seq_q * a->seq_k;
    return 2.0 * xf_dtype_size(a->dtype) * n + (a->key_pad ? (double)a->batch * a->seq_k : 0.0);
}

// The reference softmax of one query row i: t holds scale * x in fp64, p
// receives the probabilities (0 where masked; all 0 if no key is visible).
// Returns the number of visible keys.
int xf_ref_softmax_row(int n, const double *t, const uint8_t *pad_row, int causal, int i,
                       double *p);

// The fp64 reference and, if bound is not NULL, the componentwise bound
// (softmax_ref.c). math_ulp: the variant's exp error in ulps.
void xf_ref_softmax(const xf_softmax_args *a, double math_ulp, double *y_ref, double *bound);

// Relative error bound of the exp arguments of one row, shared with the
// attention bound. t: the exact scaled scores; t_err: how far the variant's
// scores may be off before the softmax (0 for the softmax stage).
// Returns max_j eps_j over visible keys and fills eps[j].
double xf_softmax_arg_error(int n, const double *t, const double *t_err,
                            const uint8_t *pad_row, int causal, int i, double math_ulp,
                            double *eps);

#endif
