// The emulated avx512bf16 linear's own mutant (variants/mutant has the
// native one): the same dropped pair of k, so that the emulated checks are
// shown to bite where the native ones cannot run.
#include "../avx512bf16/family.h"
#include "../simd/kernel_table.h"

static const xf_variant variants[] = {
    {.stage = XF_LINEAR, .family = "mutant-emu", .name = "mutant-emu-bf16-dropped-pair", .dtype = XF_BF16,
     .summary = "avx512bf16-emu linear, pair 1 of k left out of the packed panels",
     .unavailable = XF_DOT_FN(unavailable), .prepare = XF_DOT_FN(linear_prepare_dropped_pair),
     .run = XF_DOT_FN(linear_run), .release = XF_DOT_FN(linear_release)},
    {.stage = XF_ATTENTION, .family = "mutant-emu", .name = "mutant-emu-bf16-attention-dropped-pair",
     .dtype = XF_BF16, .summary = "avx512bf16-emu attention, pair 1 of dk left out of the packed keys",
     .math_ulp = XF_SIMD_EXP_ULP, .p_bf16 = 1, .unavailable = XF_DOT_FN(unavailable),
     .prepare = XF_DOT_FN(attention_prepare_dropped_pair), .run = XF_DOT_FN(attention_run),
     .release = XF_DOT_FN(attention_release)},
    XF_VARIANTS_END};

const xf_family xf_family_mutant_emu = {.name = "mutant-emu", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                        .emulated = XF_IS_EMULATED};
