#include "vec.h"

// c is (6,16) with row stride ldc; a is packed (kc,6); b is packed (kc,16).
void xf_avx2_gemm_ukernel(int kc, const float *a, const float *b, float *c, int ldc, int init,
                          const float *bias, int relu)
{
    __m256 acc[XF_GEMM_MR][2];
    const __m256 b0 = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
    const __m256 b1 = bias ? _mm256_loadu_ps(bias + 8) : _mm256_setzero_ps();
    for (int i = 0; i < XF_GEMM_MR; i++) {
        acc[i][0] = init ? b0 : _mm256_loadu_ps(c + (long)i * ldc);
        acc[i][1] = init ? b1 : _mm256_loadu_ps(c + (long)i * ldc + 8);
    }
    for (int k = 0; k < kc; k++, a += XF_GEMM_MR, b += XF_GEMM_NR) {
        const __m256 w0 = _mm256_loadu_ps(b), w1 = _mm256_loadu_ps(b + 8);
        for (int i = 0; i < XF_GEMM_MR; i++) {
            const __m256 x = _mm256_broadcast_ss(a + i);
            acc[i][0] = _mm256_fmadd_ps(x, w0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(x, w1, acc[i][1]);
        }
    }
    const __m256 zero = _mm256_setzero_ps();
    for (int i = 0; i < XF_GEMM_MR; i++) {
        if (relu) acc[i][0] = _mm256_max_ps(acc[i][0], zero), acc[i][1] = _mm256_max_ps(acc[i][1], zero);
        _mm256_storeu_ps(c + (long)i * ldc, acc[i][0]);
        _mm256_storeu_ps(c + (long)i * ldc + 8, acc[i][1]);
    }
}
