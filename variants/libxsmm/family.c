// The libxsmm family's table. Compiled without ISA flags: libxsmm JITs for
// the CPU (capped by XFBENCH_MAX_ISA), the softmax comes from the SIMD
// family the cap allows.
#include "xsmm.h"

static const xf_variant variants[] = {
    XF_VARIANT(XF_LINEAR, "libxsmm", "libxsmm",
               "JIT batch-reduce GEMM, 32x64 tiles of y over 64-deep k blocks, W^T packed in prepare",
               XF_SIMD_EXP_ULP, xf_xsmm_unavailable, xf_xsmm_linear_prepare, xf_xsmm_linear_run,
               xf_xsmm_linear_release),
    XF_VARIANT(XF_ATTENTION, "libxsmm", "libxsmm",
               "JIT Q K^T (K^T packed), SIMD softmax rows, P V batch-reduced over key blocks", XF_SIMD_EXP_ULP,
               xf_xsmm_unavailable, xf_xsmm_attention_prepare, xf_xsmm_attention_run, xf_xsmm_attention_release),
    XF_VARIANTS_END,
};

const xf_family xf_family_libxsmm = {.name = "libxsmm", .cflags = XF_FAMILY_CFLAGS, .variants = variants};
