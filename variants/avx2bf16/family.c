// The avx2bf16 family's table: variants of dtype bf16, run where AVX2 and
// FMA are (and XFBENCH_MAX_ISA allows them).
#include "../isa/isa.h"
#include "family.h"

static const char *unavailable(void) { return xf_isa_unavailable(XF_ISA_AVX2); }

static const xf_variant variants[] = {
    {.stage = XF_LINEAR, .family = "avx2bf16", .name = "avx2bf16", .dtype = XF_BF16,
     .summary = "bf16 x, W, y; W packed in prepare; 6x16 ymm micro-kernel widening W, FMA in fp32, rounded to "
                "nearest even",
     .unavailable = unavailable, .prepare = xf_avx2bf16_linear_prepare, .run = xf_avx2bf16_linear_run,
     .release = xf_avx2bf16_linear_release},
    {.stage = XF_ADD_LAYERNORM, .family = "avx2bf16", .name = "avx2bf16", .dtype = XF_BF16,
     .summary = "bf16 x, r, y; x + r widened into an L1 row, two-pass mean/variance in fp32, rounded on the store",
     .math_ulp = 1.0, .unavailable = unavailable, .prepare = xf_avx2bf16_add_layernorm_prepare,
     .run = xf_avx2bf16_add_layernorm_run, .release = xf_avx2bf16_add_layernorm_release},
    XF_VARIANTS_END};

const xf_family xf_family_avx2bf16 = {.name = "avx2bf16", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                      .isa = XF_ISA_AVX2};
