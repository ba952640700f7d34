// The kernel table of the widest SIMD family this CPU and XFBENCH_MAX_ISA
// allow, for the families built on those kernels (omp, libxsmm).
#include "../isa/isa.h"
#include "kernel_table.h"

const xf_simd_kernels *xf_simd_widest_kernels(void)
{
#ifdef XF_HAVE_AVX512
    if (!xf_isa_unavailable(XF_ISA_AVX512)) return &xf_avx512_kernels;
#endif
#ifdef XF_HAVE_AVX2
    if (!xf_isa_unavailable(XF_ISA_AVX2)) return &xf_avx2_kernels;
#endif
    return NULL;
}
