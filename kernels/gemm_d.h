// The fp64 GEMM the fast reference is built on: the plain loops of
// linear_ref.c and attention_ref.c, reorganised for the caches (packed
// panels, a register tile) and threaded with OpenMP over all the
// machine's cores. Each element is still a plain fp64 sum of products,
// only in another order, so it agrees with the plain loops to rounding
// (tests/ref_agree.c).
#ifndef XF_GEMM_D_H
#define XF_GEMM_D_H

#include <stddef.h>

// c (m,n) at row stride ldc = a (m,k) times b (k,n), each operand given by
// its row and column strides, so a transposed operand costs nothing:
// c[i][j] = sum_p a[i*rsa + p*csa] * b[p*rsb + j*csb]. c is overwritten.
void xf_gemm_d(int m, int n, int k, const double *a, size_t rsa, size_t csa, const double *b, size_t rsb,
               size_t csb, double *c, size_t ldc);

// Threads the fast reference uses: every core, whatever --threads says
// (the reference is not what is measured).
int xf_ref_threads(void);
// Inside a parallel region already: the callee then runs on its thread alone.
int xf_ref_in_parallel(void);

// 1: the GEMM's portable C tile even where AVX2 and FMA would run (so the
// tests exercise the tile every other CPU runs).
void xf_ref_set_portable(int portable);

// 1: the stages use their plain loops (the readable specification) instead
// of the blocked, threaded code; tests/ref_agree.c compares the two. The
// default comes from the environment: XFBENCH_REF=plain.
void xf_ref_set_plain(int plain);
int xf_ref_plain(void);

#endif
