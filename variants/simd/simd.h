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

// The pieces other families call through the kernel table (kernel_table.h
// says what each does): XF_FN(packed_b_floats), XF_FN(gemm_part), ...
#define XF_SIMD_DECLARE_(ret, name, params) ret XF_FN(name) params;
XF_SIMD_PIECES(XF_SIMD_DECLARE_)
#undef XF_SIMD_DECLARE_
// This family's table of them (kernel_table.h names the native ones).
extern const xf_simd_kernels XF_FN(kernels);

// GEMM: C = A B (+ bias, ReLU) with B packed in panels of XF_GEMM_NR
// columns, [panel][k][NR], zero-padded past n (packed_b_floats floats;
// pack_b_nk packs B^T given: w is (n,k) with row stride ldw, a PyTorch
// weight or K rows).
// B given: v is (k,n) with row stride ldv (V rows).
void XF_FN(pack_b_kn)(const float *v, int ldv, int k, int n, float *bp);
// The ragged-panel micro-kernels (ukernels.c): gemm_ukernel_lda (vec.h)
// for 1..MR-1 rows of A, so the last panel is read in place too.
typedef void xf_ukernel_lda_fn(int kc, const float *a, long lda, const float *b, float *c, int ldc, int init,
                               const float *bias, int relu);
xf_ukernel_lda_fn XF_FN(gemm_ukernel_lda1), XF_FN(gemm_ukernel_lda2), XF_FN(gemm_ukernel_lda3),
    XF_FN(gemm_ukernel_lda4), XF_FN(gemm_ukernel_lda5);
#ifdef XF_UK_FEW_COLS
// The few-row GEMM (gemm.c) and its micro-kernels of 5 to 8 rows.
void XF_FN(gemm_few)(int m, int n, int k, const float *a, const float *bp, const float *bias, int relu, float *c,
                     int p0, int p1);
xf_ukernel_lda_fn XF_FN(gemm_ukernel_few5), XF_FN(gemm_ukernel_few6), XF_FN(gemm_ukernel_few7),
    XF_FN(gemm_ukernel_few8);
#endif
// C (MR x npanels NR, row stride ldc) = A (MR rows of stride lda) times
// npanels consecutive B panels packed (kc,NR): the fused attention's
// scores of a whole query panel against a key tile.
void XF_FN(gemm_ukernel_panels)(int kc, const float *a, long lda, const float *b, float *c, int ldc,
                                int npanels);
// A tile of `rows` rows of A (stride lda, 1..MR, read in place) against one
// B panel: the full micro-kernel or the ragged one with that many rows;
// pf: the next MR rows to prefetch (whole panels only; pf = a for none).
void XF_FN(gemm_tile)(int kc, const float *a, long lda, const float *pf, const float *b, float *c, int ldc,
                      int rows, int init, const float *bias, int relu);
// c is (m,n) with row stride ldc; a is (m,k) with row stride lda; bias is
// padded to whole panels or NULL.
void XF_FN(gemm)(int m, int n, int k, const float *a, int lda, const float *bp,
                 const float *bias, int relu, float *c, int ldc);

// The softmax's exp pass, for decoding's attention (decode.c): t = exp(t -
// max) in place, returning the sum.
float XF_FN(exp_sum)(float *t, int n, float max);


// Sustained fp32 FMA GFLOP/s of this family's vectors on the calling
// thread, measured for about `seconds`.
double XF_FN(fma_gflops)(double seconds);
// The same of the GEMM micro-kernel with its operands in L1 (peak.c).
double XF_FN(tile_gflops)(double seconds);
// One STREAM-triad pass a = b + 3 c (n a multiple of XV_W, aligned arrays);
// stream: non-temporal stores.
void XF_FN(triad)(float *a, const float *b, const float *c, long n, int stream);
// The sum of b[0..n) (n a multiple of 8 XV_W, aligned): a read-only pass.
float XF_FN(read)(const float *b, long n);

#define XF_SIMD_STR_(x) #x
#define XF_SIMD_STR(x) XF_SIMD_STR_(x) // a macro's value as a string

// The family's variants, each listed once: X(stage, name suffix, entry
// prefix, one-line summary). The variant is named XF_FAMILY_NAME + suffix;
// its entry points XF_FN(prefix_prepare), _run, _release (variant.h
// signatures) are declared here and tabled by simd/family.c. The first
// variant listed for a stage is the one its compound stages compose.
#define XF_SIMD_VARIANTS(X)                                                                                 \
    X(XF_EMBED, "", embed, "PE table built in prepare; gather, scale, add")                                 \
    X(XF_LINEAR, "", linear,                                                                                \
      "GEMM, weights packed in prepare, " XF_GEMM_DESC ", bias+ReLU fused; <= 4 rows: weights streamed")   \
    X(XF_SOFTMAX, "", softmax, "3 passes over an L1-resident row, base-2 vector exp")                       \
    X(XF_ATTENTION, "-flash", flash,                                                                        \
      "fused, online softmax (base-2 exp) over " XF_SIMD_STR(XF_UK_ROWS_LDA) "-key tiles, masked tiles skipped; "  \
      "<= 4 query rows: K/V read in place")                                                                   \
    X(XF_ATTENTION, "-3pass", attention3, "Q K^T GEMM, softmax rows, P V GEMM")                             \
    X(XF_ADD_LAYERNORM, "", add_layernorm, "add + two-pass mean/variance on an L1-resident row")            \
    X(XF_LM_HEAD, "", lm_head, "the linear with the table as weight (packed as B^T; <= 4 rows: streamed)") \
    X(XF_RMSNORM, "", rmsnorm, "sum of squares in vectors, then x * 1/rms * gamma from L1")

#define XF_SIMD_DECLARE_ENTRIES_(stage, suffix, prefix, summary)                                            \
    int XF_FN(prefix##_prepare)(const void *args, void **ctx);                                              \
    void XF_FN(prefix##_run)(const void *args, void *ctx);                                                  \
    void XF_FN(prefix##_release)(void *ctx);
XF_SIMD_VARIANTS(XF_SIMD_DECLARE_ENTRIES_)
#undef XF_SIMD_DECLARE_ENTRIES_

#endif
