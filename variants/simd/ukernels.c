// The family's GEMM micro-kernels, made from its ukernel_body.h (the
// register-blocked tile of variants/<isa>/): one reads A packed [k][MR]
// (ragged panels, the fused attention's Q K^T), one A as MR rows of stride
// XF_UK_ROWS_LDA (the fused attention's P V, which so needs no packing of
// P), one A as MR rows of a run-time stride (the GEMM's whole panels).
#include "vec.h"

#define XF_UK_LDA_ARG
#define XF_UK_NAME XF_FN(gemm_ukernel)
#define XF_UK_A(i) a[i]
#define XF_UK_A_STEP XF_GEMM_MR
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_A
#undef XF_UK_A_STEP
#undef ROWS
#undef DECLARE
#undef INIT
#undef STEP
#undef STORE

#define XF_UK_NAME XF_FN(gemm_ukernel_rows)
#define XF_UK_A(i) a[(i) * XF_UK_ROWS_LDA]
#define XF_UK_A_STEP 1
#include "ukernel_body.h"
#undef XF_UK_NAME
#undef XF_UK_A
#undef XF_UK_A_STEP
#undef XF_UK_LDA_ARG
#undef ROWS
#undef DECLARE
#undef INIT
#undef STEP
#undef STORE

#define XF_UK_LDA_ARG long lda,
#define XF_UK_NAME XF_FN(gemm_ukernel_lda)
#define XF_UK_A(i) a[(i) * lda]
#define XF_UK_A_STEP 1
#include "ukernel_body.h"
