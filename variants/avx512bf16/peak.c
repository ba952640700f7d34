// The bf16 roof: vdpbf16ps throughput from 12 independent chains that stay
// in registers (more than its latency x issue width on Zen 4), so nothing
// but the dot-product units is measured. Each instruction does 16 lanes x
// 2 pairs: 32 products and 32 adds, counted as 64 flops, as the GEMM's
// 2 m n k counts them.
#include "../avx512/vec.h" // its intrinsics, native or emulated
#include "../isa/clock.h"
#include "family.h"

double XF_DOT_FN(dot_gflops)(double seconds)
{
    // Small values (1/64 and 1/128, exact in bf16): 12 chains growing by
    // 2^-12 a step stay far from overflow for the few billion steps of a
    // measurement, and far from denormals.
    const __m512bh a = (__m512bh)_mm512_set1_epi32(0x3C803C80), b = (__m512bh)_mm512_set1_epi32(0x3C003C00);
    __m512 c0 = _mm512_set1_ps(1), c1 = _mm512_set1_ps(2), c2 = _mm512_set1_ps(3), c3 = _mm512_set1_ps(4),
           c4 = _mm512_set1_ps(5), c5 = _mm512_set1_ps(6), c6 = _mm512_set1_ps(7), c7 = _mm512_set1_ps(8),
           c8 = _mm512_set1_ps(9), c9 = _mm512_set1_ps(10), c10 = _mm512_set1_ps(11), c11 = _mm512_set1_ps(12);
    const long batch = 1 << 20;
    long iters = 0;
    const double t0 = xf_now_ns() * 1e-9;
    double t1;
    do {
        for (long i = 0; i < batch; i++) {
            c0 = _mm512_dpbf16_ps(c0, a, b), c1 = _mm512_dpbf16_ps(c1, a, b), c2 = _mm512_dpbf16_ps(c2, a, b);
            c3 = _mm512_dpbf16_ps(c3, a, b), c4 = _mm512_dpbf16_ps(c4, a, b), c5 = _mm512_dpbf16_ps(c5, a, b);
            c6 = _mm512_dpbf16_ps(c6, a, b), c7 = _mm512_dpbf16_ps(c7, a, b), c8 = _mm512_dpbf16_ps(c8, a, b);
            c9 = _mm512_dpbf16_ps(c9, a, b), c10 = _mm512_dpbf16_ps(c10, a, b), c11 = _mm512_dpbf16_ps(c11, a, b);
        }
        iters += batch;
        t1 = xf_now_ns() * 1e-9;
    } while (t1 - t0 < seconds);
    const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                                   _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)),
                                                 _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11))));
    volatile float sink = _mm512_reduce_add_ps(s); // the chains observable: not optimised away
    (void)sink;
    return 12.0 * 64.0 * (double)iters / (t1 - t0) / 1e9;
}
