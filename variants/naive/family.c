// The naive family: the obvious loops, the honest baseline. Built without
// -ffast-math so the compiler may not reorder (and so vectorise) its
// reductions; glibc's expf, powf, sinf and cosf are within 1 ulp
// (glibc manual, "Known Maximum Errors in Math Functions"), sqrtf is exact.
#include "../isa/isa.h"
#include "naive.h"

#define ENTRY_(stage, entry, summary) XF_VARIANT(stage, "naive", "naive", summary, 1.0, NULL, NULL, xf_naive_##entry, NULL),
static const xf_variant variants[] = {
    XF_NAIVE_VARIANTS(ENTRY_){.stage = XF_LINEAR, .family = "naive", .name = "naive", .dtype = XF_BF16,
                              .summary = "one scalar dot product per output, widened terms summed in fp32",
                              .math_ulp = 1.0, .run = xf_naive_linear_bf16},
    {.stage = XF_ADD_LAYERNORM, .family = "naive", .name = "naive", .dtype = XF_BF16,
     .summary = "two passes per row over the widened x + r, in fp32", .math_ulp = 1.0,
     .run = xf_naive_add_layernorm_bf16},
    {.stage = XF_ATTENTION, .family = "naive", .name = "naive", .dtype = XF_BF16,
     .summary = "per query row: scores, softmax, weighted V sum, terms widened, in fp32", .math_ulp = 1.0,
     .run = xf_naive_attention_bf16},
    {.stage = XF_SOFTMAX, .family = "naive", .name = "naive", .dtype = XF_BF16,
     .summary = "three passes per widened row in fp32, rounded", .math_ulp = 1.0, .run = xf_naive_softmax_bf16},
    {.stage = XF_EMBED, .family = "naive", .name = "naive", .dtype = XF_BF16,
     .summary = "table row widened * sqrt(d) + sin/cos via libm, rounded", .math_ulp = 1.0,
     .run = xf_naive_embed_bf16},
    {.stage = XF_LM_HEAD, .family = "naive", .name = "naive", .dtype = XF_BF16,
     .summary = "one scalar dot product per logit, widened terms summed in fp32", .math_ulp = 1.0,
     .run = xf_naive_lm_head_bf16},
    XF_VARIANTS_END};

const xf_family xf_family_naive = {.name = "naive", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                   .fma_gflops = xf_naive_fma_gflops, .triad = xf_naive_triad, .read = xf_naive_read,
                                   .isa = XF_ISA_SCALAR};
