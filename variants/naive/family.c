// The naive family: the obvious loops, the honest baseline. Built without
// -ffast-math so the compiler may not reorder (and so vectorise) its
// reductions; glibc's expf, powf, sinf and cosf are within 1 ulp
// (glibc manual, "Known Maximum Errors in Math Functions"), sqrtf is exact.
#include "../isa/isa.h"
#include "naive.h"

static const xf_variant variants[] = {
    XF_VARIANT(XF_EMBED, "naive", "naive", "table row * sqrt(d) + sin/cos via libm", 1.0, NULL, NULL,
               xf_naive_embed, NULL),
    XF_VARIANT(XF_LINEAR, "naive", "naive", "one scalar dot product per output", 1.0, NULL, NULL, xf_naive_linear,
               NULL),
    XF_VARIANT(XF_SOFTMAX, "naive", "naive", "three passes per row: max, exp+sum, divide", 1.0, NULL, NULL,
               xf_naive_softmax, NULL),
    XF_VARIANT(XF_ATTENTION, "naive", "naive", "per query row: scores, softmax, weighted V sum", 1.0, NULL, NULL,
               xf_naive_attention, NULL),
    XF_VARIANT(XF_ADD_LAYERNORM, "naive", "naive", "two-pass mean and variance per row", 1.0, NULL, NULL,
               xf_naive_add_layernorm, NULL),
    XF_VARIANT(XF_LM_HEAD, "naive", "naive", "one scalar dot product per logit", 1.0, NULL, NULL, xf_naive_lm_head,
               NULL),
    XF_VARIANTS_END,
};

const xf_family xf_family_naive = {.name = "naive", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                   .fma_gflops = xf_naive_fma_gflops, .triad = xf_naive_triad,
                                   .isa = XF_ISA_SCALAR};
