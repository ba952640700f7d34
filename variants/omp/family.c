// The omp family's table. Its code is compiled without ISA flags: the
// vector work happens in the SIMD family xf_simd_best_kernels() picks at run time.
#include "omp.h"

static const char *unavailable(void) { return xf_omp_unavailable(); }

// The SIMD kernels' exp, the same for both ISAs.
#define MATH_ULP XF_SIMD_EXP_ULP

#define V(st, nm, what, prep, go, rel)                                                      \
    {.stage = st, .family = "omp", .name = nm, .summary = what, .math_ulp = MATH_ULP,       \
     .unavailable = unavailable, .prepare = prep, .run = go, .release = rel}

static const xf_variant variants[] = {
    V(XF_EMBED, "omp", "threads over token chunks; PE table in prepare", xf_omp_embed_prepare,
      xf_omp_embed_run, xf_omp_embed_release),
    V(XF_LINEAR, "omp", "threads split the B panels of each shared A block of the SIMD GEMM, weights packed in prepare",
      xf_omp_linear_prepare, xf_omp_linear_run, xf_omp_linear_release),
    V(XF_SOFTMAX, "omp", "threads over L1-sized row chunks of the SIMD softmax rows",
      xf_omp_rows_prepare_softmax, xf_omp_softmax_run, xf_omp_rows_release),
    V(XF_ATTENTION, "omp-flash", "threads over (batch, head, query block) of the SIMD fused attention",
      xf_omp_flash_prepare, xf_omp_flash_run, xf_omp_flash_release),
    V(XF_ADD_LAYERNORM, "omp", "threads over L1-sized row chunks of the SIMD add_layernorm rows",
      xf_omp_rows_prepare_add_layernorm, xf_omp_add_layernorm_run, xf_omp_rows_release),
    {.name = NULL},
};

const xf_family xf_family_omp = {.name = "omp", .cflags = XF_FAMILY_CFLAGS, .variants = variants};
