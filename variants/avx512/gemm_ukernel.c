#include "vec.h"

// c is (14,32) with row stride ldc; a is packed (kc,14); b is packed (kc,32).
void xf_avx512_gemm_ukernel(int kc, const float *a, const float *b, float *c, int ldc, int init,
                            const float *bias, int relu)
{
    __m512 acc[XF_GEMM_MR][2];
    const __m512 b0 = bias ? _mm512_loadu_ps(bias) : _mm512_setzero_ps();
    const __m512 b1 = bias ? _mm512_loadu_ps(bias + 16) : _mm512_setzero_ps();
    for (int i = 0; i < XF_GEMM_MR; i++) {
        acc[i][0] = init ? b0 : _mm512_loadu_ps(c + (long)i * ldc);
        acc[i][1] = init ? b1 : _mm512_loadu_ps(c + (long)i * ldc + 16);
    }
    for (int k = 0; k < kc; k++, a += XF_GEMM_MR, b += XF_GEMM_NR) {
        const __m512 w0 = _mm512_loadu_ps(b), w1 = _mm512_loadu_ps(b + 16);
        for (int i = 0; i < XF_GEMM_MR; i++) {
            const __m512 x = _mm512_set1_ps(a[i]);
            acc[i][0] = _mm512_fmadd_ps(x, w0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(x, w1, acc[i][1]);
        }
    }
    const __m512 zero = _mm512_setzero_ps();
    for (int i = 0; i < XF_GEMM_MR; i++) {
        if (relu) acc[i][0] = _mm512_max_ps(acc[i][0], zero), acc[i][1] = _mm512_max_ps(acc[i][1], zero);
        _mm512_storeu_ps(c + (long)i * ldc, acc[i][0]);
        _mm512_storeu_ps(c + (long)i * ldc + 16, acc[i][1]);
    }
}
