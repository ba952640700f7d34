// The avx2bf16 family: bf16 storage, fp32 FMA arithmetic, on any AVX2 CPU
// (docs/design.md, Precision): every primitive stage.
#ifndef XF_AVX2BF16_FAMILY_H
#define XF_AVX2BF16_FAMILY_H

#include "../variant.h"

int xf_avx2bf16_linear_prepare(const void *args, void **ctx);
void xf_avx2bf16_linear_run(const void *args, void *ctx);
void xf_avx2bf16_linear_release(void *ctx);
int xf_avx2bf16_add_layernorm_prepare(const void *args, void **ctx);
void xf_avx2bf16_add_layernorm_run(const void *args, void *ctx);
void xf_avx2bf16_add_layernorm_release(void *ctx);

int xf_avx2bf16_attention_prepare(const void *args, void **ctx);
void xf_avx2bf16_attention_run(const void *args, void *ctx);
void xf_avx2bf16_attention_release(void *ctx);
int xf_avx2bf16_softmax_prepare(const void *args, void **ctx);
void xf_avx2bf16_softmax_run(const void *args, void *ctx);
void xf_avx2bf16_softmax_release(void *ctx);
int xf_avx2bf16_embed_prepare(const void *args, void **ctx);
void xf_avx2bf16_embed_run(const void *args, void *ctx);
void xf_avx2bf16_embed_release(void *ctx);
int xf_avx2bf16_lm_head_prepare(const void *args, void **ctx);
void xf_avx2bf16_lm_head_run(const void *args, void *ctx);
void xf_avx2bf16_lm_head_release(void *ctx);

#endif
