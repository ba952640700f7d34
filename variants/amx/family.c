// The amx family's table: variants of dtype bf16, run where AMX-BF16 is,
// Linux grants the tile state and XFBENCH_MAX_ISA is unset (variants/isa/
// amx.h).
#include "family.h"

#include "../avx512bf16/family.h"
#include "../isa/amx.h"
#include "../simd/kernel_table.h"
#include "tiles.h"

const char *xf_amx_family_unavailable(void)
{
    const char *why = xf_amx_unavailable();
    return why ? why : XF_DOT_FN(unavailable)();
}

static const xf_variant variants[] = {
    {.stage = XF_LINEAR, .family = "amx", .name = "amx", .dtype = XF_BF16,
     .summary = "bf16 x, W, y; W packed in prepare into 16 x 16-pair tiles; 32 x 32 blocks of four tdpbf16ps "
                "accumulator tiles; threads over row blocks (panels when fewer); <= 4 rows: avx512bf16's streamed "
                "kernel, columns over threads",
     .unavailable = xf_amx_family_unavailable, .prepare = xf_amx_linear_prepare, .run = xf_amx_linear_run,
     .release = xf_amx_linear_release},
    {.stage = XF_LM_HEAD, .family = "amx", .name = "amx", .dtype = XF_BF16,
     .summary = "the AMX linear with the table as weight (packed, threaded; <= 4 rows: streamed)",
     .unavailable = xf_amx_family_unavailable, .prepare = xf_amx_lm_head_prepare, .run = xf_amx_lm_head_run,
     .release = xf_amx_lm_head_release},
    {.stage = XF_ATTENTION, .family = "amx", .name = "amx", .dtype = XF_BF16,
     .summary = "S = Q K^T and O = P V on AMX tiles (K and V^T packed per head as the linear's W), "
                "fp32 softmax rows, P rounded to bf16; threads over (batch, head) (query blocks when fewer); "
                "<= 4 query rows: avx512bf16's, one thread",
     .math_ulp = XF_SIMD_EXP_ULP, .p_bf16 = 1, .unavailable = xf_amx_family_unavailable,
     .prepare = xf_amx_attention_prepare, .run = xf_amx_attention_run, .release = xf_amx_attention_release},
    XF_VARIANTS_END};

// Its GEMMs and attention products run on the tile unit; the few-row
// paths (vdpbf16ps, FMA) are bandwidth-bound, under any compute roof.
static xf_bf16_arith computes_with_amx(void) { return XF_ARITH_AMX; }

const xf_family xf_family_amx = {.name = "amx", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                 .isa = XF_ISA_AVX512BF16, .bf16_arith = computes_with_amx,
                                 .tile_gflops = xf_amx_block_gflops};
