// The libxsmm family's table. Compiled without ISA flags: libxsmm JITs for
// the CPU (capped by XFBENCH_MAX_ISA), the softmax comes from the SIMD
// family the cap allows.
#include "xsmm.h"

#define V(st, nm, what, prep, go, rel)                                                       \
    {.stage = st, .family = "libxsmm", .name = nm, .summary = what,                         \
     .math_ulp = XF_SIMD_EXP_ULP, .unavailable = xf_xsmm_unavailable, .prepare = prep,      \
     .run = go, .release = rel}

static const xf_variant variants[] = {
    V(XF_LINEAR, "libxsmm", "JIT batch-reduce GEMM, 32x64 tiles of y over 64-deep k blocks, W^T packed in prepare",
      xf_xsmm_linear_prepare, xf_xsmm_linear_run, xf_xsmm_linear_release),
    V(XF_ATTENTION, "libxsmm", "JIT Q K^T (K^T packed), SIMD softmax rows, P V batch-reduced over key blocks",
      xf_xsmm_attention_prepare, xf_xsmm_attention_run, xf_xsmm_attention_release),
    {.name = NULL},
};

const xf_family xf_family_libxsmm = {.name = "libxsmm", .cflags = XF_FAMILY_CFLAGS, .variants = variants};
