// A SIMD family's table of variants, the same for every ISA: the names come
// from vec.h (XF_FAMILY_NAME), the code from the generic kernels compiled
// with this family's flags.
#include "simd.h"

static const char *unavailable(void) { return xf_isa_unavailable(XF_FAMILY_ISA); }

// xv_exp's measured maximum error (tests/exp_ulp.c proves it on every float
// of the range softmax uses) covers glibc's expf (<= 1 ulp) for the online-
// softmax rescaling too; sqrtf is correctly rounded.
#define MATH_ULP XF_SIMD_EXP_ULP

static const xf_variant variants[] = {
    XF_VARIANT(XF_EMBED, XF_FAMILY_NAME, XF_FAMILY_NAME, "PE table built in prepare; gather, scale, add",
               MATH_ULP, unavailable, XF_FN(embed_prepare), XF_FN(embed_run), XF_FN(embed_release)),
    XF_VARIANT(XF_LINEAR, XF_FAMILY_NAME, XF_FAMILY_NAME,
               "GEMM, weights packed in prepare, " XF_GEMM_DESC ", bias+ReLU fused", MATH_ULP, unavailable,
               XF_FN(linear_prepare), XF_FN(linear_run), XF_FN(linear_release)),
    XF_VARIANT(XF_SOFTMAX, XF_FAMILY_NAME, XF_FAMILY_NAME, "3 passes over an L1-resident row, vector exp",
               MATH_ULP, unavailable, XF_FN(softmax_prepare), XF_FN(softmax_run), XF_FN(softmax_release)),
    // First listed: the attention compound stages use.
    XF_VARIANT(XF_ATTENTION, XF_FAMILY_NAME, XF_FAMILY_NAME "-flash",
               "fused, online softmax over 128-key tiles, masked tiles skipped", MATH_ULP, unavailable,
               XF_FN(flash_prepare), XF_FN(flash_run), XF_FN(flash_release)),
    XF_VARIANT(XF_ATTENTION, XF_FAMILY_NAME, XF_FAMILY_NAME "-3pass", "Q K^T GEMM, softmax rows, P V GEMM",
               MATH_ULP, unavailable, XF_FN(attention3_prepare), XF_FN(attention3_run), XF_FN(attention3_release)),
    XF_VARIANT(XF_ADD_LAYERNORM, XF_FAMILY_NAME, XF_FAMILY_NAME, "add + two-pass mean/variance on an L1-resident row",
               MATH_ULP, unavailable, XF_FN(add_layernorm_prepare), XF_FN(add_layernorm_run),
               XF_FN(add_layernorm_release)),
    XF_VARIANT(XF_LM_HEAD, XF_FAMILY_NAME, XF_FAMILY_NAME, "the GEMM, table packed as B^T in prepare", MATH_ULP,
               unavailable, XF_FN(lm_head_prepare), XF_FN(lm_head_run), XF_FN(lm_head_release)),
    XF_VARIANTS_END,
};

const xf_family XF_FAMILY_VAR = {.name = XF_FAMILY_NAME, .cflags = XF_FAMILY_CFLAGS,
                                 .variants = variants, .fma_gflops = XF_FN(fma_gflops),
                                 .triad = XF_FN(triad), .isa = XF_FAMILY_ISA, .gemm_nr = XF_GEMM_NR};

#define XF_SIMD_INIT_(ret, name, params) .name = XF_FN(name),
const xf_simd_kernels XF_FN(kernels) = {.family = XF_FAMILY_NAME, .isa = XF_FAMILY_ISA, .gemm_nr = XF_GEMM_NR,
                                        .gemm_mr = XF_GEMM_MR, XF_SIMD_PIECES(XF_SIMD_INIT_)};
