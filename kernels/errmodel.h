// The probabilistic error model used to check compound stages (ffn, layers,
// forward pass) end to end.
//
// Why not the componentwise worst-case bound there too: propagated through
// a linear layer, worst-case bounds grow by sum_k |W_jk| (about 11 for
// d_model 512 with PyTorch's init) while real errors grow by about
// sqrt(sum_k W_jk^2) (about 0.6), so after a few layers the worst-case bound
// exceeds the outputs themselves and the check could no longer fail.
//
// Instead every fp32 rounding is modelled as an independent relative error
// delta, |delta| <= u, with variance u^2/3 (uniform), as in Higham and Mary,
// "A New Approach to Probabilistic Rounding Error Analysis" (SIAM J. Sci.
// Comput. 2019). Each fp64 reference stage propagates a variance per element
// alongside its value; a variant passes when every element is within
// XF_MODEL_SIGMAS standard deviations of the reference.
//
// Every stage's own rounding variance is an upper bound of the model's: a
// length-n dot product gets (n+1) roundings each applied to at most
// sum|x_k w_k|, whatever the summation order, so blocked, tiled or
// online-softmax variants are covered too.
#ifndef XF_ERRMODEL_H
#define XF_ERRMODEL_H

#include "xf_common.h"

// Variance of one rounding error relative to the rounded value: uniform on
// [-u, u].
#define XF_VAR_U2 (XF_U * XF_U / 3.0)

// How many model standard deviations an element may be off. Under a normal
// tail 8 sigma is exceeded with probability 1e-15 per element; the rest of
// the margin absorbs the model's independence assumption (LayerNorm's mean
// and variance errors are shared by a whole row). A mutated variant moves
// outputs by 1e-3 or more, which is hundreds of sigmas away.
#define XF_MODEL_SIGMAS 8.0

// A value stored in bf16 by a composition of that dtype (every output of
// a primitive it calls): the rounding to bf16 adds a relative error of
// variance u_bf16^2/3, the same uniform model (docs/design.md, Precision).
// In fp32 the store is the stage's own last rounding, already in its
// model: nothing to add.
#define XF_VAR_BF16 (XF_U_BF16 * XF_U_BF16 / 3.0)
static inline void xf_var_stored(xf_dtype dt, const double *val, double *var, size_t count)
{
    if (dt == XF_BF16)
        for (size_t i = 0; i < count; i++) var[i] += XF_VAR_BF16 * val[i] * val[i];
}

#endif
