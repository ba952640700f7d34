#ifndef XF_NAIVE_H
#define XF_NAIVE_H

#include <stdint.h>
#include <string.h>

#include "../../kernels/half.h"
#include "../variant.h"

// The family's variants, one per stage, each listed once: X(stage, entry,
// one-line summary); xf_naive_<entry> (variant.h's run signature) is
// declared here and tabled by naive/family.c.
#define XF_NAIVE_VARIANTS(X)                                                                     \
    X(XF_EMBED, embed, "table row * sqrt(d) + sin/cos via libm")                                  \
    X(XF_LINEAR, linear, "one scalar dot product per output")                                     \
    X(XF_SOFTMAX, softmax, "three passes per row: max, exp+sum, divide")                          \
    X(XF_ATTENTION, attention, "per query row: scores, softmax, weighted V sum")                  \
    X(XF_ADD_LAYERNORM, add_layernorm, "two-pass mean and variance per row")                      \
    X(XF_LM_HEAD, lm_head, "one scalar dot product per logit")                                    \
    X(XF_RMSNORM, rmsnorm, "mean of squares, then one scale per element")

#define XF_NAIVE_DECLARE_(stage, entry, summary) void xf_naive_##entry(const void *args, void *ctx);
XF_NAIVE_VARIANTS(XF_NAIVE_DECLARE_)
#undef XF_NAIVE_DECLARE_

// The bf16 variants (dtype XF_BF16), and with one of the bugs the mutants
// plant: rounding by truncation, or (linear) an accumulator rounded to
// bf16 after every term.
typedef enum { XF_BF16_CORRECT, XF_BF16_TRUNCATED, XF_BF16_ACCUMULATOR } xf_naive_bf16_bug;
// v stored in bf16: rounded to nearest even, or truncated (the bug).
static inline xf_bf16 xf_naive_store_bf16(float v, xf_naive_bf16_bug bug)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bug == XF_BF16_TRUNCATED ? (xf_bf16)(bits >> 16) : xf_bf16_from_f32(v);
}
void xf_naive_linear_bf16(const void *args, void *ctx);
void xf_naive_linear_bf16_with(const xf_linear_args *a, xf_naive_bf16_bug bug);
void xf_naive_add_layernorm_bf16(const void *args, void *ctx);
void xf_naive_add_layernorm_bf16_with(const xf_add_layernorm_args *a, xf_naive_bf16_bug bug);
void xf_naive_attention_bf16(const void *args, void *ctx);
void xf_naive_softmax_bf16(const void *args, void *ctx);
void xf_naive_softmax_bf16_with(const xf_softmax_args *a, xf_naive_bf16_bug bug);
void xf_naive_embed_bf16(const void *args, void *ctx);
void xf_naive_embed_bf16_with(const xf_embed_args *a, xf_naive_bf16_bug bug);
void xf_naive_lm_head_bf16(const void *args, void *ctx);

// LayerNorm and RMSNorm with a given epsilon; the contracts' are
// XF_LN_EPS and XF_RMS_EPS.
void xf_naive_add_layernorm_eps(const xf_add_layernorm_args *a, float eps);
void xf_naive_rmsnorm_eps(const xf_rmsnorm_args *a, float eps);

// The softmax of one row as the naive family computes it; shared by the
// softmax and attention stages. t is scaled in place into probabilities.
void xf_naive_softmax_row(int n, float *t, const uint8_t *pad_row, int causal, int i);

// The x86-64 baseline's roofs (variants/naive/peak.c).
double xf_naive_fma_gflops(double seconds);
void xf_naive_triad(float *a, const float *b, const float *c, long n, int stream);
float xf_naive_read(const float *b, long n);

#endif
