// The family's GEMM micro-kernels, made from ukernel_body.h (the
// register-blocked tile, its width from variants/<isa>/vec.h): one reads A
// as MR rows of stride XF_UK_ROWS_LDA (the fused attention's P V, which so
// needs no packing of P), one A as MR rows of a run-time stride (the GEMM's
// whole panels and the fused attention's Q, read in place; it also
// prefetches the rows at pf, the next panel), and the same with 1 to MR - 1
// rows (ragged last panels, read in place too); and MR rows of run-time
// stride against several consecutive B panels in one call (the fused
// attention's scores); and, where vec.h has a few-row tile, 5 to 8 rows
// against a narrower panel (a decode step's GEMM).
#include "simd.h"

_Static_assert(XF_GEMM_MR == 6, "the ragged-panel kernels below list rows 1..5");

// Every kernel but the ragged-panel and few-row ones (the ragged ones of 3
// to 5 rows have their own, below), every step: B's row 12 steps ahead
// (one prefetch a 64-byte line). B streams from L2 at NR floats a step
// (the GEMM's B block, the fused attention's K and V tiles), and on a Xeon (Sapphire Rapids class,
// KVM, 1 thread) the hardware prefetchers left the micro-kernel waiting on
// it. Fraction of the FMA loop, in-process: the avx512 GEMM at QKV / FFN1 /
// FFN2 0.67-0.69 -> 0.72-0.74 (distances 4 to 24 within noise of each
// other); the micro-kernel alone over a 1 MiB block of B panels 0.79-0.85
// -> 0.86-0.87. avx512-flash at seq 512 / 1024 / 2048, alternating
// processes: 5.03-5.10 / 19.8-20.0 / 80.8-82.5 ms -> 4.71-4.77 / 18.7-19.0
// / 75.1-77.2. On Zen 4 a prefetch of B in the GEMM measured nothing
// either way.
#define XF_UK_B_AHEAD 12
#define XF_UK_PREFETCH_B                                                                     \
    for (int j = 0; j < XF_GEMM_NR; j += 64 / (int)sizeof(float))                            \
        _mm_prefetch((const char *)(b + XF_UK_B_AHEAD * XF_GEMM_NR + j), _MM_HINT_T0);
#define XF_UK_LDA_ARG
#define XF_UK_PREFETCH(k) XF_UK_PREFETCH_B
#define XF_UK_NAME XF_FN(gemm_ukernel_rows)
#define XF_UK_A(i) a[(i) * XF_UK_ROWS_LDA]
#define XF_UK_A_STEP 1
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_A
#undef XF_UK_LDA_ARG

#define XF_UK_A(i) a[(i) * lda]
// One line of each of the MR rows at pf per 16 steps, where step k reads;
// and 64 steps before the end, the tile's C, which its stores then find in
// L1 instead of waiting on the L3 for each line. Zen 4, QKV (512 x 1536 x
// 512), 1 thread, in-process interleaved, fraction of the FMA loop: 0.905
// -> 0.938 (C stored to an L1 scratch instead, the bound of this: 0.959).
#undef XF_UK_PREFETCH
#define XF_UK_PREFETCH(k)                                                                    \
    XF_UK_PREFETCH_B                                                                         \
    if (((k) & 15) == 0) {                                                                   \
        for (int r = 0; r < XF_GEMM_MR; r++) _mm_prefetch((const char *)(pf + r * lda + (k)), _MM_HINT_T0); \
        if ((k) == ((kc - 64) & ~15))                                                        \
            for (int r = 0; r < XF_GEMM_MR; r++)                                             \
                for (int j = 0; j < XF_GEMM_NR; j += 16)                                     \
                    _mm_prefetch((const char *)(c + (long)r * ldc + j), _MM_HINT_T0);        \
    }
#define XF_UK_LDA_ARG long lda, const float *pf,
#define XF_UK_NAME XF_FN(gemm_ukernel_lda)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_LDA_ARG
#undef XF_UK_PREFETCH
#define XF_UK_LDA_ARG long lda,
#define XF_UK_PREFETCH(k)

#define XF_UK_NAME XF_FN(gemm_ukernel_lda1)
#define XF_UK_ROWS(X) X(0)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_ROWS

#define XF_UK_NAME XF_FN(gemm_ukernel_lda2)
#define XF_UK_ROWS(X) X(0) X(1)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_ROWS

// From 3 rows, B's line XF_UK_RAGGED_AHEAD bytes ahead, where vec.h asks
// for it (avx2; docs/performance.md, "Decoding at batch 2 to 8"): a decode
// step of 3 to 5 rows streams B from DRAM through these kernels alone.
#undef XF_UK_PREFETCH
#define XF_UK_PREFETCH(k)                                                                    \
    if (XF_UK_RAGGED_AHEAD > 0)                                                              \
        for (int j = 0; j < XF_GEMM_NR; j += 64 / (int)sizeof(float))                        \
            _mm_prefetch((const char *)(b + j) + XF_UK_RAGGED_AHEAD, _MM_HINT_T0);

#define XF_UK_NAME XF_FN(gemm_ukernel_lda3)
#define XF_UK_ROWS(X) X(0) X(1) X(2)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_ROWS

#define XF_UK_NAME XF_FN(gemm_ukernel_lda4)
#define XF_UK_ROWS(X) X(0) X(1) X(2) X(3)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_ROWS

#define XF_UK_NAME XF_FN(gemm_ukernel_lda5)
#define XF_UK_ROWS(X) X(0) X(1) X(2) X(3) X(4)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_ROWS

#undef XF_UK_PREFETCH
#define XF_UK_PREFETCH(k) XF_UK_PREFETCH_B
#define XF_UK_PANELS
#define XF_UK_NAME XF_FN(gemm_ukernel_panels)
#include "ukernel_body.h"
#undef XF_UK_PANELS
#undef XF_UK_NAME
#undef XF_UK_PREFETCH
#undef XF_UK_LDA_ARG

#ifdef XF_UK_FEW_COLS
// The few-row kernels (gemm.c, "Few rows"): 5 to XF_GEMM_FEW_MR rows of A
// read in place against one panel of XF_GEMM_FEW_NR columns over the whole
// k. B streams from DRAM once, with no software prefetch: Zen 4, 1 thread,
// a 128 MiB weight, 8 rows, B's row prefetched 24 steps ahead (3 KiB)
// 6.21-6.74 ms against 5.65-6.22 without (7 rows: 6.22-7.47 against
// 5.26-6.10; 8 or 64 steps ahead were slower than 24).
#define XF_UK_B_STEP XF_GEMM_FEW_NR
#define XF_UK_PREFETCH(k)
#define XF_UK_LDA_ARG long lda,
#pragma push_macro("XF_UK_COLS")
#undef XF_UK_COLS
#define XF_UK_COLS XF_UK_FEW_COLS
_Static_assert(XF_GEMM_FEW_MR == 8, "the few-row kernels below list rows 5..8");

#define XF_UK_NAME XF_FN(gemm_ukernel_few5)
#define XF_UK_ROWS(X) X(0) X(1) X(2) X(3) X(4)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_ROWS

#define XF_UK_NAME XF_FN(gemm_ukernel_few6)
#define XF_UK_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_ROWS

#define XF_UK_NAME XF_FN(gemm_ukernel_few7)
#define XF_UK_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6)
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_ROWS

#define XF_UK_NAME XF_FN(gemm_ukernel_few8)
#define XF_UK_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#include "ukernel_body.h"
#pragma pop_macro("XF_UK_COLS")
#endif
