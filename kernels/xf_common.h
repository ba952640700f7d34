// Shared vocabulary of every stage contract: the stage list, the unit
// roundoff and the attention mask rule. Nothing here computes a stage.
#ifndef XF_COMMON_H
#define XF_COMMON_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    XF_EMBED,
    XF_LINEAR,
    XF_SOFTMAX,
    XF_ATTENTION,
    XF_ADD_LAYERNORM,
    XF_FFN,
    XF_ENCODER_LAYER,
    XF_DECODER_LAYER,
    XF_FORWARD,
    XF_NSTAGES
} xf_stage;

// Stages below XF_FFN are primitives: each variant implements them directly.
// The rest are compositions of primitives (variants/compose).
#define XF_FIRST_COMPOUND XF_FFN

const char *xf_stage_name(xf_stage s);
int xf_stage_from_name(const char *name); // -1 if unknown

// The fp64 copy of count fp32 values, from which the references compute
// (malloc'd; NULL if out of memory).
double *xf_widen(const float *x, size_t count);

// fp32 unit roundoff: every correctly rounded fp32 operation has relative
// error at most u.
#define XF_U (1.0 / 16777216.0)

// Higham's gamma_n = n u / (1 - n u): the relative forward error bound of a
// length-n sum or dot product evaluated in any order (Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., Lemma 3.1 and section 3.1).
static inline double xf_gamma(double n) { return n * XF_U / (1.0 - n * XF_U); }

// LayerNorm epsilon fixed by the contract (PyTorch's default).
#define XF_LN_EPS 1e-5f

// The one masking rule all attention and softmax variants implement.
// Query row i may see key j unless the key is padding (key_pad[j] == 1) or,
// with the causal mask, j > i. Causal is aligned top-left (key j visible to
// query i iff j <= i) also when seq_q != seq_k, as PyTorch's
// scaled_dot_product_attention(is_causal=True) and torch.tril(ones(Sq,Sk)) do.
static inline int xf_key_visible(const uint8_t *key_pad_row, int causal, int i, int j)
{
    if (key_pad_row && key_pad_row[j]) return 0;
    if (causal && j > i) return 0;
    return 1;
}

#endif
