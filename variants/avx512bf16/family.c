// The avx512bf16 family's table: variants of dtype bf16, run where
// AVX512_BF16 is (and XFBENCH_MAX_ISA allows it). Its compositions borrow
// the bf16 kernels it has none of (avx512bf16w's), as every family borrows.
#include "../isa/isa.h"
#include "family.h"

const char *xf_avx512bf16_unavailable(void) { return xf_isa_unavailable(XF_ISA_AVX512BF16); }

static const xf_variant variants[] = {
    {.stage = XF_LINEAR, .family = "avx512bf16", .name = "avx512bf16", .dtype = XF_BF16,
     .summary = "bf16 x, W, y; W packed in prepare with pairs of k interleaved; 6x64 zmm vdpbf16ps micro-kernel; "
                "<= 4 rows: W streamed",
     .unavailable = xf_avx512bf16_unavailable, .prepare = xf_avx512bf16_linear_prepare,
     .run = xf_avx512bf16_linear_run, .release = xf_avx512bf16_linear_release},
    {.stage = XF_LM_HEAD, .family = "avx512bf16", .name = "avx512bf16", .dtype = XF_BF16,
     .summary = "the vdpbf16ps linear with the table as weight (packed; <= 4 rows: streamed)",
     .unavailable = xf_avx512bf16_unavailable, .prepare = xf_avx512bf16_lm_head_prepare,
     .run = xf_avx512bf16_lm_head_run, .release = xf_avx512bf16_lm_head_release},
    XF_VARIANTS_END};

// Every kernel of this family is the vdpbf16ps micro-kernel's.
static int computes_with_dot(void) { return 1; }

const xf_family xf_family_avx512bf16 = {.name = "avx512bf16", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                        .bf16_gflops = xf_avx512bf16_dot_gflops, .isa = XF_ISA_AVX512BF16,
                                        .bf16_dot = computes_with_dot};
