// The libxsmm family (libxsmm 1.17, JIT). libxsmm is column-major: a
// row-major (rows,cols) matrix is its transpose there, so every product
// here is written as C^T = B^T A^T in libxsmm's terms. Kernels are
// dispatched in prepare; a NULL dispatch (a shape or CPU the JIT does not
// take) makes prepare fail, which the harness reports as a skip, never a
// crash.
#ifndef XF_XSMM_H
#define XF_XSMM_H

#include <libxsmm.h>

#include "../isa/blocking.h"
#include "../simd/kernel_table.h"

// A column-major C (m,n) = A (m,k) B (k,n), blocked into (BM,BN) tiles of
// C and k slices of at most kc (from the L2: variants/isa/blocking.c),
// each tile and slice the batch-reduce over k
// blocks of BK of one JIT kernel (libxsmm_smmdispatch_reducebatch_strd:
// strides between the k blocks of A and of B, in bytes) with a second
// kernel for a ragged k end. Edge tiles have their own kernels: at most
// 2 x 2 tile shapes x (k blocks starting C, k blocks adding to C, k end).
// Why slices: the kernel keeps a few columns of C in registers and walks
// the whole A tile (BM x k) for each of them, so that tile must stay in
// L2 between them and between the calls for the next tiles of B; at k =
// 2048 it was 512 KiB, beside a B tile as large.
typedef struct {
    int m, n, k, lda, ldb, ldc;
    int kc;        // the k slice: a multiple of BK
    size_t a_tile; // floats from one BM-row tile of A to the next
    libxsmm_smmfunction_reducebatch_strd body[2][2][2], tail[2][2]; // [beta][m edge?][n edge?]
} xf_xsmm_plan;

// 0, or -1 if libxsmm cannot JIT one of the kernels. a_tile: BM for a
// plain A; BM * k for A packed as tiles of BM rows, each (BM, k) with lda
// BM.
int xf_xsmm_plan_make(xf_xsmm_plan *p, int m, int n, int k, int lda, size_t a_tile, int ldb, int ldc);
// k slices of the plan: ceil(k / kc), and 1 for k = 0 (the slice that
// zeroes C).
int xf_xsmm_plan_slices(const xf_xsmm_plan *p);
// Tile (i0, j0) of C over k slice s, which starts at k0 = s * kc:
// C[i0.., j0..] = (s ? C[i0.., j0..] : 0) + A[i0.., k0..] B[k0.., j0..].
void xf_xsmm_plan_tile(const xf_xsmm_plan *p, const float *a, const float *b, float *c, int i0, int j0, int s);

// Where libxsmm may run: the cap of XFBENCH_MAX_ISA (its JIT is told the
// target) and the SIMD kernels the attention's softmax uses
// (xf_simd_widest_kernels).
const char *xf_xsmm_unavailable(void);

int xf_xsmm_linear_prepare(const void *args, void **ctx);
void xf_xsmm_linear_run(const void *args, void *ctx);
void xf_xsmm_linear_release(void *ctx);
int xf_xsmm_attention_prepare(const void *args, void **ctx);
void xf_xsmm_attention_run(const void *args, void *ctx);
void xf_xsmm_attention_release(void *ctx);

#endif
