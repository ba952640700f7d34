// The generic SIMD kernels, written once against vec.h and compiled into
// each SIMD family with its own flags and register blocking (as BLIS builds
// one framework around per-architecture micro-kernels). XF_FN gives every
// function the family's prefix, so avx2 and avx512 link side by side.
#ifndef XF_SIMD_H
#define XF_SIMD_H

#include <stddef.h>

#include "../variant.h"
#include "kernel_table.h"
#include "vec.h"


// GEMM: C = A B (+ bias, ReLU) with B packed in panels of XF_GEMM_NR
// columns, [panel][k][NR], zero-padded past n.
size_t XF_FN(packed_b_floats)(int n, int k);
// B^T given: w is (n,k) with row stride ldw (a PyTorch weight, or K rows).
void XF_FN(pack_b_nk)(const float *w, int ldw, int n, int k, float *bp);
// B given: v is (k,n) with row stride ldv (V rows).
void XF_FN(pack_b_kn)(const float *v, int ldv, int k, int n, float *bp);
// A block: a is (mc,kc) with row stride lda -> ap [panels][kc][MR],
// zero rows past mc.
void XF_FN(pack_a)(const float *a, int lda, int mc, int kc, float *ap);
// The ragged-panel micro-kernels (ukernels.c): gemm_ukernel_lda (vec.h)
// for 1..MR-1 rows of A, so the last panel is read in place too.
typedef void xf_ukernel_lda_fn(int kc, const float *a, long lda, const float *b, float *c, int ldc, int init,
                               const float *bias, int relu);
xf_ukernel_lda_fn XF_FN(gemm_ukernel_lda1), XF_FN(gemm_ukernel_lda2), XF_FN(gemm_ukernel_lda3),
    XF_FN(gemm_ukernel_lda4), XF_FN(gemm_ukernel_lda5);
// The pieces of gemm a thread team shares out (kernel_table.h).
void XF_FN(gemm_part)(int n, int k, const float *a, int lda, const float *bp, const float *bias, int relu,
                      float *c, int ldc, int r0, int r1, int p0, int p1);
void XF_FN(gemm_k0)(int m, int n, const float *bias, int relu, float *c, int ldc);
// c is (m,n) with row stride ldc; a is (m,k) with row stride lda; bias is
// padded to whole panels or NULL.
void XF_FN(gemm)(int m, int n, int k, const float *a, int lda, const float *bp,
                 const float *bias, int relu, float *c, int ldc);

// Softmax pieces shared by the softmax and fused attention kernels:
// y[0..n) = scale * x with -inf where pad is set, returning the max (y may
// be x); and t = exp(t - max) in place, returning the sum.
float XF_FN(scale_mask_max)(const float *x, float *y, int n, float scale, const uint8_t *pad);
float XF_FN(exp_sum)(float *t, int n, float max);

// The masked, scaled softmax of one row in place: t[j] = softmax(scale * t
// + mask)[j]; all zeros if no key is visible.
void XF_FN(softmax_row)(int n, float *t, float scale, const uint8_t *pad_row, int causal, int i);

// The pieces the single-thread stages are made of (kernel_table.h says
// what each does); exported through XF_FN(kernels) for the omp family.
void XF_FN(softmax_rows)(const xf_softmax_args *a, size_t r0, size_t r1, float *t, int stream);
void XF_FN(add_layernorm_rows)(const xf_add_layernorm_args *a, int r0, int r1, float *v_row, int big);
void XF_FN(embed_rows)(const xf_embed_args *a, const float *pe_table, int r0, int r1);
const float *XF_FN(embed_pe)(const void *ctx);
int XF_FN(flash_br)(void);
int XF_FN(flash_tiles)(int seq_k);
size_t XF_FN(flash_kv_floats)(int seq_k, int dk);
void *XF_FN(flash_ws_new)(int dk);
void XF_FN(flash_ws_free)(void *ws);
void XF_FN(flash_pack_head)(const xf_attention_args *a, int b, int h, float *kv);
void XF_FN(flash_visible_tiles)(const xf_attention_args *a, int b, uint8_t *visible);
void XF_FN(flash_block)(const xf_attention_args *a, const float *kv, const uint8_t *visible,
                        void *ws, int b, int h, int i0);

// Sustained fp32 FMA GFLOP/s of this family's vectors on the calling
// thread, measured for about `seconds`.
double XF_FN(fma_gflops)(double seconds);
// One STREAM-triad pass a = b + 3 c (n a multiple of XV_W, aligned arrays);
// stream: non-temporal stores.
void XF_FN(triad)(float *a, const float *b, const float *c, long n, int stream);

// Stage entry points (variant.h signatures).
int XF_FN(linear_prepare)(const void *args, void **ctx);
void XF_FN(linear_run)(const void *args, void *ctx);
void XF_FN(linear_release)(void *ctx);
int XF_FN(softmax_prepare)(const void *args, void **ctx);
void XF_FN(softmax_run)(const void *args, void *ctx);
void XF_FN(softmax_release)(void *ctx);
int XF_FN(add_layernorm_prepare)(const void *args, void **ctx);
void XF_FN(add_layernorm_run)(const void *args, void *ctx);
void XF_FN(add_layernorm_release)(void *ctx);
int XF_FN(embed_prepare)(const void *args, void **ctx);
void XF_FN(embed_run)(const void *args, void *ctx);
void XF_FN(embed_release)(void *ctx);
int XF_FN(attention3_prepare)(const void *args, void **ctx);
void XF_FN(attention3_run)(const void *args, void *ctx);
void XF_FN(attention3_release)(void *ctx);
int XF_FN(flash_prepare)(const void *args, void **ctx);
void XF_FN(flash_run)(const void *args, void *ctx);
void XF_FN(flash_release)(void *ctx);

#endif
