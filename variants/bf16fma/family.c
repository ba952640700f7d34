// A bf16-storage family's table (bf16fma.h): variants of dtype bf16, run
// where the fp32 family they are compiled with runs (and XFBENCH_MAX_ISA
// allows it).
#include "../isa/isa.h"
#include "bf16fma.h"

static const char *unavailable(void) { return xf_isa_unavailable(XF_FAMILY_ISA); }

#define ENTRY_(stage_id, fn, ulp, text)                                                                     \
    {.stage = stage_id, .family = XF_BF16_NAME, .name = XF_BF16_NAME, .dtype = XF_BF16, .summary = text,       \
     .math_ulp = ulp, .unavailable = unavailable, .prepare = XF_BF_FN(fn##_prepare), .run = XF_BF_FN(fn##_run), \
     .release = XF_BF_FN(fn##_release)},

// The ulp bounds are the fp32 family's own (kernel_table.h): rounding to
// bf16 on the store is the check's bf16 tolerance, not the math's.
static const xf_variant variants[] = {
    ENTRY_(XF_EMBED, embed, 1.0, "bf16 table row widened, scaled, added to " XF_FAMILY_NAME
                                 "'s PE table (built in prepare), rounded")
    ENTRY_(XF_LINEAR, linear, 0.0, "bf16 x, W, y; x widened per call, W per L2 block of panels, " XF_FAMILY_NAME
                                   "'s " XF_GEMM_DESC " GEMM in fp32, rounded; <= 8 rows: bf16 pair panels "
                                   "widened in registers")
    ENTRY_(XF_ADD_LAYERNORM, add_layernorm, 1.0,
           "bf16 x, r, y; x + r widened into an L1 row, two-pass mean/variance in fp32, rounded on the store")
    ENTRY_(XF_SOFTMAX, softmax, XF_SIMD_EXP_ULP,
           XF_FAMILY_NAME "'s 3-pass softmax rows, bf16 widened on the first pass's loads, rounded on the last's stores")
    ENTRY_(XF_ATTENTION, attention, XF_SIMD_EXP_ULP,
           "per head widened to fp32 for " XF_FAMILY_NAME "'s fused attention, output rounded; <= 4 query rows: "
           "bf16 K/V read in place")
    ENTRY_(XF_LM_HEAD, lm_head, 0.0, "the bf16 linear with the table as weight (packed; <= 8 rows: pair panels)")
    XF_VARIANTS_END};

const xf_family XF_BF_VAR = {.name = XF_BF16_NAME, .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                             .isa = XF_FAMILY_ISA, .emulated = XF_IS_EMULATED};
