#include <stdlib.h>
#include <string.h>

#include "isa.h"

static int env_cap(void)
{
    const char *e = getenv("XFBENCH_MAX_ISA");
    if (!e || !*e) return XF_ISA_AVX512;
    if (!strcmp(e, "scalar")) return XF_ISA_SCALAR;
    if (!strcmp(e, "avx2")) return XF_ISA_AVX2;
    if (!strcmp(e, "avx512")) return XF_ISA_AVX512;
    return -1;
}

const char *xf_isa_env_error(void)
{
    return env_cap() < 0 ? "XFBENCH_MAX_ISA must be scalar, avx2 or avx512" : NULL;
}

const char *xf_isa_unavailable(xf_isa isa)
{
    __builtin_cpu_init();
    if (isa == XF_ISA_AVX2 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
        return "this CPU lacks AVX2 or FMA";
    if (isa == XF_ISA_AVX512 &&
        !(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")))
        return "this CPU lacks AVX-512 F/BW/VL/DQ";
    if ((int)isa > env_cap()) return "capped by XFBENCH_MAX_ISA";
    return NULL;
}
