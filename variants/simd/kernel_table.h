// A SIMD family's kernels as a table of function pointers, so that a family
// built without ISA flags (omp) can drive whichever SIMD family this CPU
// allows widest (avx512, else avx2), chosen at run time. The pieces are the ones the family's own
// single-thread variants are made of, cut at the boundaries a thread team
// divides the work along: row ranges, GEMM tiles, flash query blocks.
#ifndef XF_KERNEL_TABLE_H
#define XF_KERNEL_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "../variant.h"

// Largest error of xv_exp in ulps, measured on every float of [-87.33, 0]
// by tests/exp_ulp.c (which fails if it is exceeded); the checker's bound
// uses it through each variant's math_ulp.
#define XF_SIMD_EXP_ULP 2.0

// Softmax, add_layernorm, rmsnorm and embed calls whose working set (bytes
// read and written) is over half the L3 write their output by streaming stores
// (xf_stream_output, variants/isa/blocking.c): it cannot stay in the L3
// for its reader anyway, and streaming saves the read for ownership.
// Smaller outputs are left in cache, where the next stage of a forward
// pass finds them.
#include "../isa/blocking.h"

// Attention calls with at most this many query rows per head are
// decode-step shapes: they run the row kernels of decode.c, which read K/V
// in place, instead of packing them for the GEMM micro-kernel, which would
// waste most of its MR rows. Measured on Zen 3 (docs/performance.md,
// Decoding). (The bf16 FMA families' linears, which took their row path
// up to this many rows, run pair panels up to 8 rows: bf16fma/linear.c.)
enum { XF_FEW_ROWS = 4 };

// An fp32 linear of this many rows (a decode step at batch 1) streams W in
// its own layout with dot products (decode.c's linear_rows); from two rows
// on it runs the packed GEMM. A dot product loads an x vector for every
// FMA, so two rows cost 3 loads per 2 FMAs, and x's rows must stay in L1
// (two rows of FFN2's k 2048 and W's row fill 24 KiB); the micro-kernel
// broadcasts x's elements instead and loads a W vector per MR FMAs. Zen 4,
// 1 thread, a 128 MiB weight from DRAM, ms per call, row path -> GEMM:
// avx512 at 2 rows 4.6-4.8 -> 4.2-4.5 (k 512), 6.4-9.3 -> 4.5-4.6 (k 2048);
// at 4 rows 5.8-7.0 -> 4.2-4.3, 12.9-13.0 -> 3.9-4.3; one row level
// (docs/performance.md, "Decoding at batch 2 to 8").
enum { XF_DOT_ROWS = 1 };

// The pieces other families call, each listed once as X(return type, name,
// parameters): simd.h declares them per ISA (XF_FN(name)), xf_simd_kernels
// below has a field for each, simd/family.c fills it.
// - GEMM (gemm.c): B packed [panel][k][NR]; c is (m,n). gemm_part works
//   on a part of C for a thread team to share out: rows r0..r1 (r0 a
//   multiple of gemm_mr, the rows of an A panel) and B panels p0..p1, for
//   k > 0; gemm_k0 is the k = 0 case (C is the bias, or 0). A linear's
//   weight of m rows: gemm_few_rows says whether the call runs gemm_few
//   (below), linear_packed_floats and linear_pack size and pack it for
//   whichever runs.
// - Row ranges, softmax's and add_layernorm's with a scratch row each
//   (seq_k or d floats), rmsnorm's and embed's (token rows); stream:
//   write the output by streaming stores (decided from the whole call);
//   softmax_rows_bf16, softmax's rows stored in bf16 (x16, y16).
// - softmax_row: one masked, scaled softmax row in place.
// - The embed variant's prepare (the PE table), its table (seq,d), release.
// - Fused attention by query blocks of flash_br() rows (flash.c).
// - Decode-step kernels (decode.c): linear_rows, columns j0..j1 of a
//   linear of XF_DOT_ROWS rows; attend_heads, one query row of every head
//   over keys j0..j1 as a flash-decoding partial (unnormalised outputs
//   (heads,dk), their maxima m and sums l); attend_finish, the row's output
//   from a merged partial.
#define XF_SIMD_PIECES(X)                                                                                     \
    X(size_t, packed_b_floats, (int n, int k))                                                                 \
    X(void, pack_b_nk, (const float *w, int ldw, int n, int k, float *bp))                                     \
    X(int, gemm_few_rows, (int m, int k))                                                                      \
    X(size_t, linear_packed_floats, (int m, int n, int k))                                                     \
    X(void, linear_pack, (int m, const float *w, int n, int k, float *bp))                                     \
    X(void, gemm_part,                                                                                         \
      (int n, int k, const float *a, int lda, const float *bp, const float *bias, int relu, float *c, int ldc, \
       int r0, int r1, int p0, int p1))                                                                        \
    X(void, gemm_k0, (int m, int n, const float *bias, int relu, float *c, int ldc))                           \
    X(void, softmax_rows, (const xf_softmax_args *a, size_t r0, size_t r1, float *row, int stream))            \
    X(void, softmax_rows_bf16, (const xf_softmax_args *a, size_t r0, size_t r1, float *row))                   \
    X(void, add_layernorm_rows, (const xf_add_layernorm_args *a, int r0, int r1, float *row, int stream))      \
    X(void, rmsnorm_rows, (const xf_rmsnorm_args *a, int r0, int r1, int stream))                             \
    X(void, embed_rows, (const xf_embed_args *a, const float *pe, int r0, int r1, int stream))                 \
    X(void, softmax_row, (int n, float *t, float scale, const uint8_t *pad_row, int causal, int i))            \
    X(int, embed_prepare, (const void *args, void **ctx))                                                      \
    X(const float *, embed_pe, (const void *ctx))                                                              \
    X(void, embed_release, (void *ctx))                                                                        \
    X(int, flash_br, (void))                                                                                   \
    X(int, flash_tiles, (int seq_k))                                                                           \
    X(size_t, flash_kv_floats, (int seq_k, int dk))                                                            \
    X(void *, flash_ws_new, (int dk))                                                                          \
    X(void, flash_ws_free, (void *ws))                                                                         \
    X(void, flash_pack_head, (const xf_attention_args *a, int b, int h, float *kv))                            \
    X(void, flash_visible_tiles, (const xf_attention_args *a, int b, uint16_t *visible))                       \
    X(void, flash_block,                                                                                       \
      (const xf_attention_args *a, const float *kv, const uint16_t *visible, void *ws, int b, int h, int i0))  \
    X(void, linear_rows, (const xf_linear_args *a, int j0, int j1))                                            \
    X(void, attend_heads,                                                                                      \
      (const xf_attention_args *a, int b, int i, int j0, int j1, float *s, float *o, float *m, float *l))      \
    X(void, attend_finish, (const xf_attention_args *a, int b, int i, const float *o, const float *l))

typedef struct {
    const char *family; // "avx512", "avx2"
    int isa;            // xf_isa it needs
    int gemm_nr;        // columns of a packed B panel
    int gemm_mr;        // rows of an A panel
#define XF_SIMD_FIELD_(ret, name, params) ret(*name) params;
    XF_SIMD_PIECES(XF_SIMD_FIELD_)
#undef XF_SIMD_FIELD_
    // The few-row GEMM (gemm.c, "Few rows"), C's panels p0..p1 of
    // gemm_few_nr columns, for the calls gemm_few_rows takes. NULL where
    // vec.h has no few-row tile (avx2, whose gemm_few_rows takes none).
    int gemm_few_nr;
    void (*gemm_few)(int m, int n, int k, const float *a, const float *bp, const float *bias, int relu, float *c,
                     int p0, int p1);
} xf_simd_kernels;

extern const xf_simd_kernels xf_avx2_kernels;
extern const xf_simd_kernels xf_avx512_kernels;

// avx512's table, else avx2's, as far as the CPU and XFBENCH_MAX_ISA
// allow; NULL if neither may run (widest_kernels.c).
const xf_simd_kernels *xf_simd_widest_kernels(void);

#endif
