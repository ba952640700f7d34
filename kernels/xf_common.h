// Shared vocabulary of every stage contract: the stage list, the unit
// roundoff and the attention mask rule. Nothing here computes a stage.
#ifndef XF_COMMON_H
#define XF_COMMON_H

#include <stddef.h>
#include <stdint.h>

// Every stage, once: X(name, NAME). Primitives are what each variant
// implements directly; compounds are compositions of primitives
// (variants/compose). The enum, the names and the harness's table of stage
// descriptors (harness/stages/table.c) are all made from these two lists,
// so a stage cannot be half-added (docs/adding.md).
#define XF_PRIMITIVE_STAGES(X)                                                                   \
    X(embed, EMBED) X(linear, LINEAR) X(softmax, SOFTMAX) X(attention, ATTENTION)               \
    X(add_layernorm, ADD_LAYERNORM) X(lm_head, LM_HEAD) X(rmsnorm, RMSNORM)
#define XF_COMPOUND_STAGES(X)                                                                    \
    X(ffn, FFN) X(encoder_layer, ENCODER_LAYER) X(decoder_layer, DECODER_LAYER) X(forward, FORWARD)            \
    X(decode_layer, DECODE_LAYER) X(generate, GENERATE)
#define XF_STAGES(X) XF_PRIMITIVE_STAGES(X) XF_COMPOUND_STAGES(X)

#define XF_STAGE_ENUM_(name, NAME) XF_##NAME,
typedef enum { XF_STAGES(XF_STAGE_ENUM_) XF_NSTAGES } xf_stage;
#define XF_STAGE_COUNT_(name, NAME) +1
// Stages below XF_FIRST_COMPOUND are primitives.
#define XF_FIRST_COMPOUND (0 XF_PRIMITIVE_STAGES(XF_STAGE_COUNT_))

const char *xf_stage_name(xf_stage s);
int xf_stage_from_name(const char *name); // -1 if unknown

// The storage type of a case and of a variant (docs/design.md,
// Precision): fp32, or bf16 (fp32's top 16 bits, kernels/half.h) with
// fp32 arithmetic.
typedef enum { XF_F32, XF_BF16, XF_NDTYPES } xf_dtype;
typedef uint16_t xf_bf16;
const char *xf_dtype_name(xf_dtype d);    // "f32", "bf16"
int xf_dtype_from_name(const char *name); // -1 if unknown
static inline size_t xf_dtype_size(xf_dtype d) { return d == XF_BF16 ? 2 : 4; }

// The fp64 copy of count fp32 values, from which the references compute
// (malloc'd; NULL if out of memory).
double *xf_widen(const float *x, size_t count);

// fp32 unit roundoff: every correctly rounded fp32 operation has relative
// error at most u.
#define XF_U (1.0 / 16777216.0)
// bf16's: 8 significant bits, rounded to nearest.
#define XF_U_BF16 (1.0 / 256.0)

// Higham's gamma_n = n u / (1 - n u): the relative forward error bound of a
// length-n sum or dot product evaluated in any order (Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., Lemma 3.1 and section 3.1).
static inline double xf_gamma(double n) { return n * XF_U / (1.0 - n * XF_U); }

// A stage computed in fp32 and stored in bf16 (docs/design.md, Precision):
// the fp32 bound b covers the fp32 value v the variant computes (its own
// last fp32 rounding included, which only loosens it); rounding v to bf16
// adds at most u_bf16 |v| <= u_bf16 (|y_ref| + b). So each bound becomes
// b (1 + u_bf16) + u_bf16 |y_ref|.
static inline void xf_bound_bf16_output(double *bound, const double *y_ref, size_t count)
{
    for (size_t i = 0; i < count; i++)
        bound[i] = bound[i] * (1.0 + XF_U_BF16) + XF_U_BF16 * (y_ref[i] < 0 ? -y_ref[i] : y_ref[i]);
}

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
