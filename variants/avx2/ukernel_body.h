// The micro-kernel body, included by variants/simd/ukernels.c once per A
// layout (XF_UK_NAME, XF_UK_A(i): element (i, k) for the current k,
// XF_UK_A_STEP: how far a moves per k; XF_UK_PREFETCH(k): what to prefetch at
// step k).

// The 12 accumulators are named variables, not an array: gcc keeps an
// accumulator array in memory and stores it back every k step.
// XF_UK_ROWS(X), if defined, lists fewer rows (the GEMM's ragged panel).
#ifdef XF_UK_ROWS
#define ROWS XF_UK_ROWS
#else
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#endif
#define DECLARE(i) __m256 c##i##0, c##i##1;
#define INIT(i)                                                                              \
    c##i##0 = init ? b0 : _mm256_loadu_ps(c + (long)(i) * ldc);                             \
    c##i##1 = init ? b1 : _mm256_loadu_ps(c + (long)(i) * ldc + 8);
#define STEP(i)                                                                              \
    {                                                                                        \
        const __m256 x = _mm256_broadcast_ss(&XF_UK_A(i));                                  \
        c##i##0 = _mm256_fmadd_ps(x, w0, c##i##0);                                           \
        c##i##1 = _mm256_fmadd_ps(x, w1, c##i##1);                                           \
    }
#define STORE(i)                                                                             \
    if (relu) c##i##0 = _mm256_max_ps(c##i##0, zero), c##i##1 = _mm256_max_ps(c##i##1, zero); \
    _mm256_storeu_ps(c + (long)(i) * ldc, c##i##0);                                          \
    _mm256_storeu_ps(c + (long)(i) * ldc + 8, c##i##1);

// c is (6,16) with row stride ldc (or as many rows as XF_UK_ROWS lists); a
// holds them by kc as XF_UK_A lays it out; b is packed (kc,16).
void XF_UK_NAME(int kc, const float *a, XF_UK_LDA_ARG const float *b, float *c, int ldc, int init,
                const float *bias, int relu)
{
    ROWS(DECLARE)
    const __m256 b0 = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
    const __m256 b1 = bias ? _mm256_loadu_ps(bias + 8) : _mm256_setzero_ps();
    ROWS(INIT)
    for (int k = 0; k < kc; k++, a += XF_UK_A_STEP, b += XF_GEMM_NR) {
        const __m256 w0 = _mm256_loadu_ps(b), w1 = _mm256_loadu_ps(b + 8);
        ROWS(STEP)
        XF_UK_PREFETCH(k);
    }
    const __m256 zero = _mm256_setzero_ps();
    ROWS(STORE)
}

#undef ROWS
#undef DECLARE
#undef INIT
#undef STEP
#undef STORE
