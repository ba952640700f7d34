// The roofs this family's vectors can reach: FMA throughput from 12
// independent multiply-add chains (more than FMA latency x issue width on
// Zen 4, 4 x 2) that stay in registers, so nothing but the FMA units is
// measured; the GEMM micro-kernel with its operands in L1, the most the
// family's GEMM and attention can reach; one STREAM-triad pass and one
// read-only pass, which harness/peak.c runs at working sets sized for each
// cache level.
#include <immintrin.h>
#include <stdlib.h>

#include "../isa/caches.h"
#include "../isa/clock.h"
#include "simd.h"

// Seconds.
static double now(void) { return xf_now_ns() * 1e-9; }

double XF_FN(fma_gflops)(double seconds)
{
    // acc = acc * a + b converges to b / (1 - a): no overflow, no denormals.
    const xv a = xv_set1(0.999999f), b = xv_set1(1e-3f);
    xv c0 = xv_set1(1), c1 = xv_set1(2), c2 = xv_set1(3), c3 = xv_set1(4), c4 = xv_set1(5),
       c5 = xv_set1(6), c6 = xv_set1(7), c7 = xv_set1(8), c8 = xv_set1(9), c9 = xv_set1(10),
       c10 = xv_set1(11), c11 = xv_set1(12);
    const long batch = 1 << 20;
    long iters = 0;
    const double t0 = now();
    double t1;
    do {
        for (long i = 0; i < batch; i++) {
            c0 = xv_fma(c0, a, b), c1 = xv_fma(c1, a, b), c2 = xv_fma(c2, a, b);
            c3 = xv_fma(c3, a, b), c4 = xv_fma(c4, a, b), c5 = xv_fma(c5, a, b);
            c6 = xv_fma(c6, a, b), c7 = xv_fma(c7, a, b), c8 = xv_fma(c8, a, b);
            c9 = xv_fma(c9, a, b), c10 = xv_fma(c10, a, b), c11 = xv_fma(c11, a, b);
        }
        iters += batch;
        t1 = now();
    } while (t1 - t0 < seconds);
    // Keep the chains alive: their sum is observable.
    volatile float sink = xv_hsum(xv_add(xv_add(xv_add(c0, c1), xv_add(c2, c3)),
                                         xv_add(xv_add(xv_add(c4, c5), xv_add(c6, c7)),
                                                xv_add(xv_add(c8, c9), xv_add(c10, c11)))));
    (void)sink;
    return 12.0 * 2.0 * XV_W * (double)iters / (t1 - t0) / 1e9;
}

// The FMA loop above is not what the kernels can reach: the micro-kernel
// also loads a row of B and broadcasts MR elements of A every step. On a
// Xeon (Sapphire Rapids class, KVM) that mix sustained 0.86-0.88 of the
// FMA loop with every operand in L1 (docs/performance.md), so no blocking
// takes the GEMM past that. Here the family's own micro-kernel (P V's, B
// prefetched as in every GEMM) runs on an A panel, a B panel of kc rows in
// half the L1d, and a C tile accumulated in place, all kept in L1.
double XF_FN(tile_gflops)(double seconds)
{
    int kc = (int)(xf_caches_get()->l1d / 2 / (XF_GEMM_NR * sizeof(float))) / 8 * 8;
    if (kc > XF_UK_ROWS_LDA) kc = XF_UK_ROWS_LDA;
    if (kc < 8) kc = 8;
    const size_t a_floats = (size_t)XF_GEMM_MR * XF_UK_ROWS_LDA, b_floats = (size_t)kc * XF_GEMM_NR;
    float *a = aligned_alloc(64, a_floats * sizeof(float)), *b = aligned_alloc(64, b_floats * sizeof(float)),
          *c = aligned_alloc(64, (size_t)XF_GEMM_MR * XF_GEMM_NR * sizeof(float));
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return 0.0;
    }
    // C grows by kc x 1e-6 a call: far from overflow in any measurement.
    for (size_t i = 0; i < a_floats; i++) a[i] = 1e-3f;
    for (size_t i = 0; i < b_floats; i++) b[i] = 1e-3f;
    for (int i = 0; i < XF_GEMM_MR * XF_GEMM_NR; i++) c[i] = 0.0f;
    const long batch = 4096;
    long calls = 0;
    const double t0 = now();
    double t1;
    do {
        for (long i = 0; i < batch; i++) XF_FN(gemm_ukernel_rows)(kc, a, b, c, XF_GEMM_NR, 0, NULL, 0);
        calls += batch;
        t1 = now();
    } while (t1 - t0 < seconds);
    volatile float sink = c[XF_GEMM_MR * XF_GEMM_NR - 1]; // keep the tile observable
    (void)sink;
    free(a), free(b), free(c);
    return 2.0 * XF_GEMM_MR * XF_GEMM_NR * kc * (double)calls / (t1 - t0) / 1e9;
}

// a = b + 3 c over n floats (a multiple of XV_W, 64-byte aligned arrays).
// stream: non-temporal stores, which skip the read for ownership of a, so
// that the DRAM roof also bounds the kernels that stream their outputs.
void XF_FN(triad)(float *a, const float *b, const float *c, long n, int stream)
{
    const xv s = xv_set1(3.0f);
    if (stream) {
        for (long i = 0; i < n; i += XV_W) xv_stream(a + i, xv_fma(xv_load(c + i), s, xv_load(b + i)));
        _mm_sfence(); // streaming stores are weakly ordered: publish them
        return;
    }
    for (long i = 0; i < n; i += XV_W) xv_store(a + i, xv_fma(xv_load(c + i), s, xv_load(b + i)));
}

// The sum of b[0..n) (n a multiple of 8 XV_W): eight independent
// accumulators (more than add latency x two loads a cycle), so that only
// the loads limit it.
float XF_FN(read)(const float *b, long n)
{
    xv s[8];
    for (int u = 0; u < 8; u++) s[u] = xv_zero();
    for (long i = 0; i < n; i += 8 * XV_W)
        for (int u = 0; u < 8; u++) s[u] = xv_add(s[u], xv_load(b + i + u * XV_W));
    for (int u = 1; u < 8; u++) s[0] = xv_add(s[0], s[u]);
    return xv_hsum(s[0]);
}
