// A SIMD family's table of variants, the same for every ISA: the names come
// from vec.h (XF_FAMILY_NAME), the code from the generic kernels compiled
// with this family's flags.
#include "simd.h"

static const char *unavailable(void) { return xf_isa_unavailable(XF_FAMILY_ISA); }

// xv_exp's measured maximum error (tests/exp_ulp.c proves it on every float
// of the range softmax uses) covers glibc's expf (<= 1 ulp) for the online-
// softmax rescaling too; sqrtf is correctly rounded.
#define MATH_ULP XF_SIMD_EXP_ULP

#define ENTRY_(stage, suffix, prefix, summary)                                                             \
    XF_VARIANT(stage, XF_FAMILY_NAME, XF_FAMILY_NAME suffix, summary, MATH_ULP, unavailable, XF_FN(prefix##_prepare), \
               XF_FN(prefix##_run), XF_FN(prefix##_release)),
static const xf_variant variants[] = {XF_SIMD_VARIANTS(ENTRY_) XF_VARIANTS_END};

const xf_family XF_FAMILY_VAR = {.name = XF_FAMILY_NAME, .cflags = XF_FAMILY_CFLAGS,
                                 .variants = variants, .fma_gflops = XF_FN(fma_gflops),
                                 .tile_gflops = XF_FN(tile_gflops),
                                 .triad = XF_FN(triad), .read = XF_FN(read), .isa = XF_FAMILY_ISA, .gemm_nr = XF_GEMM_NR,
                                 .emulated = XF_IS_EMULATED};

#define XF_SIMD_INIT_(ret, name, params) .name = XF_FN(name),
const xf_simd_kernels XF_FN(kernels) = {.family = XF_FAMILY_NAME, .isa = XF_FAMILY_ISA, .gemm_nr = XF_GEMM_NR,
                                        .gemm_mr = XF_GEMM_MR, XF_SIMD_PIECES(XF_SIMD_INIT_)
#ifdef XF_UK_FEW_COLS
                                        .gemm_few_nr = XF_GEMM_FEW_NR, .gemm_few = XF_FN(gemm_few)
#endif
};
