#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"

static int env_cap(void)
{
    const char *e = getenv("XFBENCH_MAX_ISA");
    if (!e || !*e) return XF_ISA_AVX512BF16;
    if (!strcmp(e, "scalar")) return XF_ISA_SCALAR;
    if (!strcmp(e, "avx2")) return XF_ISA_AVX2;
    if (!strcmp(e, "avx512")) return XF_ISA_AVX512;
    if (!strcmp(e, "avx512bf16")) return XF_ISA_AVX512BF16;
    return -1;
}

const char *xf_isa_env_error(void)
{
    return env_cap() < 0 ? "XFBENCH_MAX_ISA must be scalar, avx2, avx512 or avx512bf16" : NULL;
}

int xf_isa_capped(void)
{
    const char *e = getenv("XFBENCH_MAX_ISA");
    return e && *e;
}

const char *xf_isa_unavailable(xf_isa isa)
{
    __builtin_cpu_init();
    if (isa == XF_ISA_AVX2 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
        return "this CPU lacks AVX2 or FMA";
    if (isa >= XF_ISA_AVX512 &&
        !(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")))
        return "this CPU lacks AVX-512 F/BW/VL/DQ";
    if (isa == XF_ISA_AVX512BF16 && !__builtin_cpu_supports("avx512bf16")) return "this CPU lacks AVX512_BF16";
    if ((int)isa > env_cap()) return "capped by XFBENCH_MAX_ISA";
    return NULL;
}

xf_isa xf_isa_level(void)
{
    xf_isa top = XF_ISA_SCALAR;
    for (int i = XF_ISA_AVX2; i <= XF_ISA_AVX512BF16; i++)
        if (!xf_isa_unavailable((xf_isa)i)) top = (xf_isa)i;
    return top;
}

const char *xf_isa_name(xf_isa isa)
{
    static const char *const names[] = {"scalar", "avx2", "avx512", "avx512bf16"};
    return names[isa];
}

void xf_peer_env_set(const char *var, const char *value, const char *why)
{
    char key[96];
    snprintf(key, sizeof key, "XFBENCH_WHY_%s", var);
    setenv(var, value, 1);
    setenv(key, why, 1);
}

const char *xf_peer_env_why(const char *var)
{
    char key[96];
    snprintf(key, sizeof key, "XFBENCH_WHY_%s", var);
    const char *why = getenv(key), *have = getenv(var);
    return why && *why && have && *have ? why : NULL;
}

// The peers' own dispatch caps for each level (oneDNN's ISA names, libxsmm's
// targets, OpenBLAS's core types): NULL leaves the library to its own
// detection. avx512bf16 imitates a CPU with AVX512_BF16 and no AMX (Zen
// 4): oneDNN stops at avx512_core_bf16 (variants/isa/amx.h: AMX runs only
// uncapped). SSE4.1 is oneDNN's floor; OpenBLAS's Nehalem kernels use no
// AVX; libxsmm's "generic" has no JIT (its dispatch returns NULL).
static const struct {
    const char *var, *level[4]; // by xf_isa: scalar, avx2, avx512, avx512bf16
} peer_caps[] = {
    {"ONEDNN_MAX_CPU_ISA", {"SSE41", "AVX2", "AVX512_CORE_VNNI", "AVX512_CORE_BF16"}},
    {"LIBXSMM_TARGET", {"generic", "hsw", "clx", NULL}},
    {"OPENBLAS_CORETYPE", {"Nehalem", "Haswell", NULL, NULL}},
};

int xf_isa_cap_peers(void)
{
    const int cap = env_cap();
    int set = 0;
    if (cap < 0 || !xf_isa_capped()) return 0; // uncapped: each peer its widest (AMX too)
    for (size_t i = 0; i < sizeof peer_caps / sizeof peer_caps[0]; i++) {
        const char *want = peer_caps[i].level[cap], *have = getenv(peer_caps[i].var);
        if (!want || (have && *have)) continue;
        char why[64];
        snprintf(why, sizeof why, "capped by XFBENCH_MAX_ISA=%s", xf_isa_name((xf_isa)cap));
        xf_peer_env_set(peer_caps[i].var, want, why);
        set = 1;
    }
    return set;
}
