// The GEMM micro-kernel body, written once against vec.h and included by
// variants/simd/ukernels.c once per A layout: XF_UK_NAME, XF_UK_A(i)
// (element (i, k) for the current k), XF_UK_A_STEP (how far a moves per
// k), XF_UK_PREFETCH(k) (what to prefetch at step k), XF_UK_LDA_ARG. The
// family's vec.h gives the register blocking: XF_GEMM_MR rows, and
// XF_UK_COLS(X, i) naming the vectors across a row (avx2: 2 ymm, 16
// columns; avx512: 4 zmm, 64 columns).
//
// The accumulators are named variables, not an array: gcc keeps an
// accumulator array in memory and stores it back every k step.
// XF_UK_ROWS(X), if defined, lists the rows (fewer for the GEMM's ragged
// panel, 5 to 8 for the few-row tile); XF_UK_B_STEP, if defined, is B's
// row stride (a panel's width; XF_GEMM_NR if not). XF_UK_B_BF16, if
// defined: b is B packed (kc,NR) in bf16, widened as it is read and the
// widened rows stored at bw (packed the same way in fp32), so the tile that
// reads a bf16 weight's panel first widens it for the tiles after it
// (variants/bf16fma/linear.c).
#ifdef XF_UK_B_STEP
#define B_STEP XF_UK_B_STEP
#else
#define B_STEP XF_GEMM_NR
#endif
#ifdef XF_UK_ROWS
#define ROWS XF_UK_ROWS
#else
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#endif
#define DECLARE_(i, j) xv c##i##j;
#define DECLARE(i) XF_UK_COLS(DECLARE_, i)
#define INIT_(i, j) c##i##j = init ? b##j : xv_load(c + (long)(i) * ldc + (j) * XV_W);
#define INIT(i) XF_UK_COLS(INIT_, i)
#define FMA_(i, j) c##i##j = xv_fma(x, w##j, c##i##j);
#define STEP(i)                                                                              \
    {                                                                                        \
        const xv x = xv_set1(XF_UK_A(i));                                                    \
        XF_UK_COLS(FMA_, i)                                                                  \
    }
#define RELU_(i, j) c##i##j = xv_max(c##i##j, zero);
#define STORE_(i, j) xv_store(c + (long)(i) * ldc + (j) * XV_W, c##i##j);
#define STORE(i)                                                                             \
    if (relu) {                                                                              \
        XF_UK_COLS(RELU_, i)                                                                 \
    }                                                                                        \
    XF_UK_COLS(STORE_, i)
#ifdef XF_UK_PANELS
#define BIAS_(i, j) const xv b##j = xv_zero();
#else
#define BIAS_(i, j) const xv b##j = bias ? xv_load(bias + (j) * XV_W) : xv_zero();
#endif
#ifdef XF_UK_B_BF16
#define B_TYPE xf_bf16
#define B_WIDENED_ARG float *bw,
#define B_WIDENED_NEXT , bw += B_STEP
#define B_ROW_(i, j)                                                                         \
    const xv w##j = xv_load_bf16(b + (j) * XV_W);                                            \
    xv_store(bw + (j) * XV_W, w##j);
#else
#define B_TYPE float
#define B_WIDENED_ARG
#define B_WIDENED_NEXT
#define B_ROW_(i, j) const xv w##j = xv_load(b + (j) * XV_W);
#endif

// One register tile: C's rows from (init ? bias or 0 : C), kc steps of
// A's column times B's row, then (ReLU and) C stored.
#define TILE                                                                                 \
    ROWS(DECLARE)                                                                            \
    XF_UK_COLS(BIAS_, _)                                                                     \
    ROWS(INIT)                                                                               \
    for (int k = 0; k < kc; k++, a += XF_UK_A_STEP, b += B_STEP B_WIDENED_NEXT) {            \
        XF_UK_COLS(B_ROW_, _)                                                                \
        ROWS(STEP)                                                                           \
        XF_UK_PREFETCH(k);                                                                   \
    }                                                                                        \
    const xv zero = xv_zero();                                                               \
    ROWS(STORE)

#ifndef XF_UK_PANELS
// c is (MR,NR) with row stride ldc (or as many rows as XF_UK_ROWS lists);
// a holds them by kc as XF_UK_A lays it out; b is packed (kc,NR).
void XF_UK_NAME(int kc, const float *a, XF_UK_LDA_ARG const B_TYPE *b, B_WIDENED_ARG float *c, int ldc,
                int init, const float *bias, int relu)
{
    TILE
}
#else
// XF_UK_PANELS: c is (MR, npanels NR) with row stride ldc = A times
// npanels consecutive B panels, each packed (kc,NR), from zero: the fused
// attention's scores of a query panel against a key tile in one call
// instead of one a 64-key panel (within 1% on Zen 4: the call is simpler,
// not measurably faster).
void XF_UK_NAME(int kc, const float *a, XF_UK_LDA_ARG const float *b, float *c, int ldc, int npanels)
{
    const int relu = 0, init = 1;
    const float *const a0 = a;
    for (int p = 0; p < npanels; p++, c += XF_GEMM_NR, a = a0) {
        TILE
    }
}
#endif

#undef ROWS
#undef DECLARE_
#undef DECLARE
#undef INIT_
#undef INIT
#undef FMA_
#undef STEP
#undef RELU_
#undef STORE_
#undef STORE
#undef BIAS_
#undef B_ROW_
#undef B_TYPE
#undef B_WIDENED_ARG
#undef B_WIDENED_NEXT
#undef TILE
#undef B_STEP
