// A SIMD family's table of variants, the same for every ISA: the names come
// from vec.h (XF_FAMILY_NAME), the code from the generic kernels compiled
// with this family's flags.
#include "simd.h"

static const char *unavailable(void) { return xf_isa_unavailable(XF_FAMILY_ISA); }

// xv_exp's measured maximum error (tests/exp_ulp.c proves it on every float
// of the range softmax uses) covers glibc's expf (<= 1 ulp) for the online-
// softmax rescaling too; sqrtf is correctly rounded.
#define MATH_ULP XF_SIMD_EXP_ULP

#define V(st, nm, what, prep, go, rel)                                                      \
    {.stage = st, .family = XF_FAMILY_NAME, .name = nm, .summary = what,                    \
     .math_ulp = MATH_ULP, .unavailable = unavailable, .prepare = prep, .run = go,          \
     .release = rel}

static const xf_variant variants[] = {
    V(XF_EMBED, XF_FAMILY_NAME, "PE table built in prepare; gather, scale, add",
      XF_FN(embed_prepare), XF_FN(embed_run), XF_FN(embed_release)),
    V(XF_LINEAR, XF_FAMILY_NAME, "GEMM, weights packed in prepare, " XF_GEMM_DESC ", bias+ReLU fused",
      XF_FN(linear_prepare), XF_FN(linear_run), XF_FN(linear_release)),
    V(XF_SOFTMAX, XF_FAMILY_NAME, "3 passes over an L1-resident row, vector exp", XF_FN(softmax_prepare),
      XF_FN(softmax_run), XF_FN(softmax_release)),
    // First listed: the attention compound stages use.
    V(XF_ATTENTION, XF_FAMILY_NAME "-flash", "fused, online softmax over 128-key tiles, masked tiles skipped",
      XF_FN(flash_prepare), XF_FN(flash_run), XF_FN(flash_release)),
    V(XF_ATTENTION, XF_FAMILY_NAME "-3pass", "Q K^T GEMM, softmax rows, P V GEMM",
      XF_FN(attention3_prepare), XF_FN(attention3_run), XF_FN(attention3_release)),
    V(XF_ADD_LAYERNORM, XF_FAMILY_NAME, "add + two-pass mean/variance on an L1-resident row",
      XF_FN(add_layernorm_prepare), XF_FN(add_layernorm_run), XF_FN(add_layernorm_release)),
    {.name = NULL},
};

const xf_family XF_FN(family) = {.name = XF_FAMILY_NAME, .cflags = XF_FAMILY_CFLAGS,
                                 .variants = variants, .fma_gflops = XF_FN(fma_gflops),
                                 .triad = XF_FN(triad), .isa = XF_FAMILY_ISA, .gemm_nr = XF_GEMM_NR};

const xf_simd_kernels XF_FN(kernels) = {
    .family = XF_FAMILY_NAME, .isa = XF_FAMILY_ISA, .gemm_nr = XF_GEMM_NR,
    .packed_b_floats = XF_FN(packed_b_floats), .pack_b_nk = XF_FN(pack_b_nk),
    .gemm_mr = XF_GEMM_MR, .gemm_part = XF_FN(gemm_part),
    .gemm_k0 = XF_FN(gemm_k0),
    .softmax_rows = XF_FN(softmax_rows), .add_layernorm_rows = XF_FN(add_layernorm_rows),
    .embed_rows = XF_FN(embed_rows), .softmax_row = XF_FN(softmax_row), .embed_prepare = XF_FN(embed_prepare),
    .embed_pe = XF_FN(embed_pe), .embed_release = XF_FN(embed_release), .flash_br = XF_FN(flash_br), .flash_tiles = XF_FN(flash_tiles),
    .flash_kv_floats = XF_FN(flash_kv_floats), .flash_ws_new = XF_FN(flash_ws_new),
    .flash_ws_free = XF_FN(flash_ws_free), .flash_pack_head = XF_FN(flash_pack_head),
    .flash_visible_tiles = XF_FN(flash_visible_tiles), .flash_block = XF_FN(flash_block)};
