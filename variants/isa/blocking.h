// The blocking of every tuned kernel, derived from this CPU's cache sizes
// (caches.h) instead of the constants of the CPU it was tuned on; why each
// rule, with the sizes it gives on the CPUs seen, next to it in blocking.c
// (docs/performance.md, "Blocking from what a core owns", has the
// arithmetic).
#ifndef XF_BLOCKING_H
#define XF_BLOCKING_H

#include <stddef.h>

typedef struct {
    // variants/simd/gemm.c: bytes of a B block (kept in L2) and of an A
    // block (kept in L3); the k slice for B panels of nr columns is
    // xf_gemm_kc(nr).
    size_t gemm_b_block, gemm_a_block;
    // Row kernels (softmax, add_layernorm) whose call reads and writes at
    // least this many bytes write their output by streaming stores:
    // xf_stream_output(working set).
    size_t stream_working_set;
    // variants/libxsmm: the k slice of a plan (a multiple of its k block).
    int xsmm_kc;
    // variants/omp: bytes of rows handed to a thread at once (softmax,
    // add_layernorm, embed rows): xf_chunk_rows(row bytes).
    size_t chunk;
} xf_blocking;

// libxsmm's tiles (variants/libxsmm/xsmm.h): BM x BN of C, k blocks of
// BK. These are register shapes, not cache shapes: a JIT kernel holds a
// few columns of a BM-row C tile in registers. BM 32 (two zmm, four ymm per
// column) against 64, Xeon SPR-class KVM, one run each: attention seq 2048
// 92 vs 113 ms; linear at seq 512 under XFBENCH_MAX_ISA=avx2 0.95 vs 0.92
// of the avx2 family's speed.
enum { XF_XSMM_BM = 32, XF_XSMM_BN = 64, XF_XSMM_BK = 64 };

const xf_blocking *xf_blocking_get(void);
// The longest k slice of the SIMD GEMM for B panels of nr columns.
int xf_gemm_kc(int nr);
// Whether a call that reads and writes working_set bytes streams its output.
int xf_stream_output(size_t working_set);
// Rows of row_bytes each in one chunk (at least 1).
int xf_chunk_rows(size_t row_bytes);

#endif
