#ifndef XF_NAIVE_H
#define XF_NAIVE_H

#include "../variant.h"

void xf_naive_embed(const void *args, void *ctx);
void xf_naive_linear(const void *args, void *ctx);
void xf_naive_softmax(const void *args, void *ctx);
void xf_naive_attention(const void *args, void *ctx);
void xf_naive_add_layernorm(const void *args, void *ctx);
void xf_naive_lm_head(const void *args, void *ctx);

// LayerNorm with a given epsilon; the contract's is XF_LN_EPS.
void xf_naive_add_layernorm_eps(const xf_add_layernorm_args *a, float eps);

// The softmax of one row as the naive family computes it; shared by the
// softmax and attention stages. t is scaled in place into probabilities.
void xf_naive_softmax_row(int n, float *t, const uint8_t *pad_row, int causal, int i);

// The x86-64 baseline's roofs (variants/naive/peak.c).
double xf_naive_fma_gflops(double seconds);
void xf_naive_triad(float *a, const float *b, const float *c, long n, int stream);

#endif
