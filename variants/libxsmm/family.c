// The libxsmm family's table. Compiled without ISA flags: libxsmm JITs for
// the CPU (capped by XFBENCH_MAX_ISA), the softmax comes from the SIMD
// family the cap allows.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxsmm.h>

#include "../isa/isa.h"
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

// libxsmm's JIT target here (after LIBXSMM_TARGET), and the level it
// reaches: 1.17's targets from "hsw" (AVX2) through "skx"/"clx" (AVX-512)
// to "cpx"/"spr" (AVX512_BF16).
static void runtime(char *buf, size_t size)
{
    static const struct {
        const char *name;
        xf_isa level;
    } targets[] = {{"spr", XF_ISA_AVX512BF16}, {"cpx", XF_ISA_AVX512BF16}, {"clx", XF_ISA_AVX512},
                   {"skx", XF_ISA_AVX512},     {"hsw", XF_ISA_AVX2}};
    const char *arch = libxsmm_get_target_arch(), *cap = getenv("LIBXSMM_TARGET");
    xf_isa level = XF_ISA_SCALAR;
    for (size_t i = 0; arch && i < sizeof targets / sizeof targets[0]; i++)
        if (!strcmp(arch, targets[i].name)) level = targets[i].level;
    int n = snprintf(buf, size, "%s", arch ? arch : "unknown");
    if (level < xf_isa_level() && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - n, "; below this CPU's %s: %s%s%s", xf_isa_name(xf_isa_level()),
                 cap && *cap ? "LIBXSMM_TARGET=" : "libxsmm 1.17 targets no wider ISA here", cap && *cap ? cap : "",
                 cap && *cap ? (xf_peer_env_why("LIBXSMM_TARGET") ? " (xfbench's cap)" : " (from the environment)")
                             : "");
}

const xf_family xf_family_libxsmm = {.name = "libxsmm", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                     .runtime_column = "xsmm_target", .runtime = runtime};
