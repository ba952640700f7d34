// The bf16-storage families: bf16 in memory (half the bytes of fp32),
// widened in registers, fp32 FMA in the vectors of the fp32 SIMD family
// they are compiled with (docs/design.md, Precision). Written once against
// that family's vec.h and kernels, as variants/simd is written once against
// vec.h: avx2bf16 on avx2 (any AVX2 CPU), avx512bf16w on avx512 (any
// AVX-512 CPU, AVX512_BF16 or not). The build names the family
// (XF_BF16_FAMILY, a bare word); XF_BF_FN gives its entry points their
// prefix, XF_FN names the fp32 family's kernels they call.
#ifndef XF_BF16FMA_H
#define XF_BF16FMA_H

#include "../../kernels/half.h"
#include "../simd/simd.h"
#include "entry_points.h"

#define XF_BF_FN(name) XF_BF_CAT(XF_BF16_FAMILY, name)
#ifndef XF_BF16_NAME // the emulated build names its own (variants/emulated)
#define XF_BF16_NAME XF_SIMD_STR(XF_BF16_FAMILY)
#endif
#define XF_BF_VAR_(family) xf_family_##family
#define XF_BF_VAR_X(family) XF_BF_VAR_(family)
#define XF_BF_VAR XF_BF_VAR_X(XF_BF16_FAMILY) // its xf_family, as registry.c names it

XF_BF16_DECLARE(XF_BF16_FAMILY)

// dst (rows,n) fp32, row stride ldd = src (rows,n) bf16, row stride lds.
static inline void xf_bf16_widen_rows(const xf_bf16 *src, size_t lds, int rows, int n, float *dst, size_t ldd)
{
    for (int r = 0; r < rows; r++, src += lds, dst += ldd) {
        int c = 0;
        for (; c + XV_W <= n; c += XV_W) xv_store(dst + c, xv_load_bf16(src + c));
        for (; c < n; c++) dst[c] = xf_bf16_to_f32(src[c]);
    }
}

// dst (rows,n) bf16, row stride ldd = src (rows,n) fp32, row stride lds,
// rounded.
static inline void xf_bf16_round_rows(const float *src, size_t lds, int rows, int n, xf_bf16 *dst, size_t ldd)
{
    for (int r = 0; r < rows; r++, src += lds, dst += ldd) {
        int c = 0;
        for (; c + XV_W <= n; c += XV_W) xv_store_bf16(dst + c, xv_load(src + c));
        for (; c < n; c++) dst[c] = xf_bf16_from_f32(src[c]);
    }
}

#endif
