// The roofs this family's vectors can reach: FMA throughput from 12
// independent multiply-add chains (more than FMA latency x issue width on
// Zen 4, 4 x 2) that stay in registers, so nothing but the FMA units is
// measured; one STREAM-triad pass and one read-only pass, which
// harness/peak.c runs at working sets sized for each cache level.
#include <immintrin.h>

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
