// The naive family: the obvious loops, the honest baseline. Built without
// -ffast-math so the compiler may not reorder (and so vectorise) its
// reductions; glibc's expf, powf, sinf and cosf are within 1 ulp
// (glibc manual, "Known Maximum Errors in Math Functions"), sqrtf is exact.
#include "../isa/isa.h"
#include "naive.h"

#define NAIVE(st, fn, what)                                                                  \
    {.stage = st, .family = "naive", .name = "naive", .summary = what, .math_ulp = 1.0,     \
     .run = fn}

static const xf_variant variants[] = {
    NAIVE(XF_EMBED, xf_naive_embed, "table row * sqrt(d) + sin/cos via libm"),
    NAIVE(XF_LINEAR, xf_naive_linear, "one scalar dot product per output"),
    NAIVE(XF_SOFTMAX, xf_naive_softmax, "three passes per row: max, exp+sum, divide"),
    NAIVE(XF_ATTENTION, xf_naive_attention, "per query row: scores, softmax, weighted V sum"),
    NAIVE(XF_ADD_LAYERNORM, xf_naive_add_layernorm, "two-pass mean and variance per row"),
    {.name = NULL},
};

const xf_family xf_family_naive = {.name = "naive", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                   .fma_gflops = xf_naive_fma_gflops, .triad = xf_naive_triad,
                                   .isa = XF_ISA_SCALAR};
