// The avx512bf16 family's table: variants of dtype bf16, run where
// AVX512_BF16 is (and XFBENCH_MAX_ISA allows it). Its compositions borrow
// the bf16 kernels it has none of (avx512bf16w's), as every family borrows.
#include "../simd/kernel_table.h"
#include "family.h"

const char *XF_DOT_FN(unavailable)(void) { return xf_isa_unavailable(XF_DOT_ISA); }

static const xf_variant variants[] = {
    {.stage = XF_LINEAR, .family = XF_DOT_NAME, .name = XF_DOT_NAME, .dtype = XF_BF16,
     .summary = "bf16 x, W, y; W packed in prepare with pairs of k interleaved; 6x64 zmm vdpbf16ps micro-kernel; "
                "<= 2 rows: W streamed",
     .unavailable = XF_DOT_FN(unavailable), .prepare = XF_DOT_FN(linear_prepare),
     .run = XF_DOT_FN(linear_run), .release = XF_DOT_FN(linear_release)},
    {.stage = XF_LM_HEAD, .family = XF_DOT_NAME, .name = XF_DOT_NAME, .dtype = XF_BF16,
     .summary = "the vdpbf16ps linear with the table as weight (packed; <= 2 rows: streamed)",
     .unavailable = XF_DOT_FN(unavailable), .prepare = XF_DOT_FN(lm_head_prepare),
     .run = XF_DOT_FN(lm_head_run), .release = XF_DOT_FN(lm_head_release)},
    {.stage = XF_ATTENTION, .family = XF_DOT_NAME, .name = XF_DOT_NAME, .dtype = XF_BF16,
     .summary = "K and V packed by pairs per head; S = Q K^T and O = P V by vdpbf16ps, fp32 softmax rows, "
                "P rounded to bf16; <= 4 query rows: avx512bf16w's",
     .math_ulp = XF_SIMD_EXP_ULP, .p_bf16 = 1, .unavailable = XF_DOT_FN(unavailable),
     .prepare = XF_DOT_FN(attention_prepare), .run = XF_DOT_FN(attention_run),
     .release = XF_DOT_FN(attention_release)},
    XF_VARIANTS_END};

// Every kernel of this family is the vdpbf16ps micro-kernel's.
static xf_bf16_arith computes_with_dot(void) { return XF_ARITH_DOT; }

const xf_family XF_DOT_VAR = {.name = XF_DOT_NAME, .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                              .bf16_gflops = XF_DOT_FN(dot_gflops), .isa = XF_DOT_ISA,
                              .bf16_arith = computes_with_dot, .emulated = XF_IS_EMULATED};
