// The omp family's table. Its code is compiled without ISA flags: the
// vector work happens in the SIMD family xf_simd_widest_kernels() picks at run time.
#include "omp_family.h"

static const char *unavailable(void) { return xf_omp_unavailable(); }

// The SIMD kernels' exp, the same for both ISAs.
#define MATH_ULP XF_SIMD_EXP_ULP

static const xf_variant variants[] = {
    XF_VARIANT(XF_EMBED, "omp", "omp", "threads over token chunks; PE table in prepare", MATH_ULP, unavailable,
               xf_omp_embed_prepare, xf_omp_embed_run, xf_omp_embed_release),
    XF_VARIANT(XF_LINEAR, "omp", "omp",
               "each thread the SIMD GEMM over its share of A's row panels (of B's panels when M is small), "
               "weights packed in prepare; <= 4 rows: output columns over threads",
               MATH_ULP, unavailable, xf_omp_linear_prepare, xf_omp_linear_run, xf_omp_linear_release),
    XF_VARIANT(XF_SOFTMAX, "omp", "omp", "threads over L1-sized row chunks of the SIMD softmax rows", MATH_ULP,
               unavailable, xf_omp_softmax_prepare, xf_omp_softmax_run, xf_omp_rows_release),
    XF_VARIANT(XF_ATTENTION, "omp", "omp-flash",
               "threads over (batch, head, query block) of the SIMD fused attention; <= 4 query rows: keys over "
               "threads, log-sum-exp merge",
               MATH_ULP, unavailable, xf_omp_flash_prepare, xf_omp_flash_run, xf_omp_flash_release),
    XF_VARIANT(XF_ADD_LAYERNORM, "omp", "omp", "threads over L1-sized row chunks of the SIMD add_layernorm rows",
               MATH_ULP, unavailable, xf_omp_add_layernorm_prepare, xf_omp_add_layernorm_run, xf_omp_rows_release),
    XF_VARIANT(XF_LM_HEAD, "omp", "omp", "the omp linear with the table as a bias-free weight", MATH_ULP,
               unavailable, xf_omp_lm_head_prepare, xf_omp_lm_head_run, xf_omp_linear_release),
    XF_VARIANT(XF_RMSNORM, "omp", "omp", "threads over L1-sized row chunks of the SIMD rmsnorm rows", MATH_ULP,
               unavailable, xf_omp_rmsnorm_prepare, xf_omp_rmsnorm_run, xf_omp_rows_release),
    XF_VARIANTS_END,
};

const xf_family xf_family_omp = {.name = "omp", .cflags = XF_FAMILY_CFLAGS, .variants = variants};
