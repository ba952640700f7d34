// Choosing the kernels and the per-thread buffers of the omp family.
#include <stdlib.h>

#include "omp_family.h"

const char *xf_omp_unavailable(void)
{
    return xf_simd_widest_kernels() ? NULL : "needs the avx2 or avx512 kernels, which cannot run here";
}

int xf_omp_buffers_new(xf_omp_buffers *b, int threads, size_t floats)
{
    b->stride = (floats + 15) / 16 * 16 + 16;
    b->base = aligned_alloc(64, b->stride * sizeof(float) * (size_t)threads);
    return b->base ? 0 : -1;
}

float *xf_omp_buffer(const xf_omp_buffers *b, int thread) { return b->base + b->stride * (size_t)thread; }
