// The avx2bf16 family's table: variants of dtype bf16, run where AVX2 and
// FMA are (and XFBENCH_MAX_ISA allows them).
#include "../isa/isa.h"
#include "../simd/kernel_table.h"
#include "family.h"

static const char *unavailable(void) { return xf_isa_unavailable(XF_ISA_AVX2); }

static const xf_variant variants[] = {
    {.stage = XF_EMBED, .family = "avx2bf16", .name = "avx2bf16", .dtype = XF_BF16,
     .summary = "bf16 table row widened, scaled, added to avx2's PE table (built in prepare), rounded",
     .math_ulp = 1.0, .unavailable = unavailable, .prepare = xf_avx2bf16_embed_prepare,
     .run = xf_avx2bf16_embed_run, .release = xf_avx2bf16_embed_release},
    {.stage = XF_LINEAR, .family = "avx2bf16", .name = "avx2bf16", .dtype = XF_BF16,
     .summary = "bf16 x, W, y; W packed in prepare; 6x16 ymm micro-kernel widening W, FMA in fp32, rounded to "
                "nearest even",
     .unavailable = unavailable, .prepare = xf_avx2bf16_linear_prepare, .run = xf_avx2bf16_linear_run,
     .release = xf_avx2bf16_linear_release},
    {.stage = XF_ADD_LAYERNORM, .family = "avx2bf16", .name = "avx2bf16", .dtype = XF_BF16,
     .summary = "bf16 x, r, y; x + r widened into an L1 row, two-pass mean/variance in fp32, rounded on the store",
     .math_ulp = 1.0, .unavailable = unavailable, .prepare = xf_avx2bf16_add_layernorm_prepare,
     .run = xf_avx2bf16_add_layernorm_run, .release = xf_avx2bf16_add_layernorm_release},
    {.stage = XF_SOFTMAX, .family = "avx2bf16", .name = "avx2bf16", .dtype = XF_BF16,
     .summary = "each bf16 row widened into an L1 row, avx2's masked softmax row, rounded",
     .math_ulp = XF_SIMD_EXP_ULP, .unavailable = unavailable, .prepare = xf_avx2bf16_softmax_prepare,
     .run = xf_avx2bf16_softmax_run, .release = xf_avx2bf16_softmax_release},
    {.stage = XF_ATTENTION, .family = "avx2bf16", .name = "avx2bf16", .dtype = XF_BF16,
     .summary = "per head widened to fp32 for avx2's fused attention, output rounded; <= 4 query rows: bf16 K/V "
                "read in place",
     .math_ulp = XF_SIMD_EXP_ULP, .unavailable = unavailable, .prepare = xf_avx2bf16_attention_prepare,
     .run = xf_avx2bf16_attention_run, .release = xf_avx2bf16_attention_release},
    {.stage = XF_LM_HEAD, .family = "avx2bf16", .name = "avx2bf16", .dtype = XF_BF16,
     .summary = "the bf16 linear with the table as weight (packed; <= 4 rows: streamed)",
     .unavailable = unavailable, .prepare = xf_avx2bf16_lm_head_prepare, .run = xf_avx2bf16_lm_head_run,
     .release = xf_avx2bf16_lm_head_release},
    XF_VARIANTS_END};

const xf_family xf_family_avx2bf16 = {.name = "avx2bf16", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                      .isa = XF_ISA_AVX2};
