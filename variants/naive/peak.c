// The roofs of the x86-64 baseline the naive family is built for (SSE2, no
// FMA): what a CPU without AVX2 can reach, so that %peak means something
// under XFBENCH_MAX_ISA=scalar too. Same shape as variants/simd/peak.c:
// 12 independent chains in registers, and a triad pass.
#include <emmintrin.h>

#include "../isa/clock.h"
#include "naive.h"

// Seconds.
static double now(void) { return xf_now_ns() * 1e-9; }

// A multiply and an add per lane per step: SSE2 has no fused multiply-add,
// so a "mul+add" of 4 lanes is the baseline's 8 FLOPs.
double xf_naive_fma_gflops(double seconds)
{
    const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-3f);
    __m128 c[12];
    for (int i = 0; i < 12; i++) c[i] = _mm_set1_ps((float)(i + 1));
    const long batch = 1 << 20;
    long iters = 0;
    const double t0 = now();
    double t1;
    do {
        for (long i = 0; i < batch; i++)
            for (int j = 0; j < 12; j++) c[j] = _mm_add_ps(_mm_mul_ps(c[j], a), b);
        iters += batch;
        t1 = now();
    } while (t1 - t0 < seconds);
    __m128 s = c[0];
    for (int j = 1; j < 12; j++) s = _mm_add_ps(s, c[j]);
    volatile float sink = _mm_cvtss_f32(s);
    (void)sink;
    return 12.0 * 2.0 * 4 * (double)iters / (t1 - t0) / 1e9;
}

void xf_naive_triad(float *a, const float *b, const float *c, long n, int stream)
{
    const __m128 s = _mm_set1_ps(3.0f);
    for (long i = 0; i < n; i += 4) {
        __m128 v = _mm_add_ps(_mm_load_ps(b + i), _mm_mul_ps(_mm_load_ps(c + i), s));
        if (stream) _mm_stream_ps(a + i, v);
        else _mm_store_ps(a + i, v);
    }
    if (stream) _mm_sfence();
}

float xf_naive_read(const float *b, long n)
{
    __m128 s0 = _mm_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (long i = 0; i < n; i += 16) {
        s0 = _mm_add_ps(s0, _mm_load_ps(b + i)), s1 = _mm_add_ps(s1, _mm_load_ps(b + i + 4));
        s2 = _mm_add_ps(s2, _mm_load_ps(b + i + 8)), s3 = _mm_add_ps(s3, _mm_load_ps(b + i + 12));
    }
    float t[4];
    _mm_storeu_ps(t, _mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)));
    return t[0] + t[1] + t[2] + t[3];
}
