// bf16 in AVX-512 registers for the avx512bf16 family: 16 floats rounded to
// 16 bf16, to nearest even, NaNs kept quiet, as kernels/half.h's
// xf_bf16_from_f32 does one at a time (vcvtneps2bf16 would flush denormal
// inputs to zero: the same rounding everywhere keeps one bound).
#ifndef XF_AVX512BF16_X16_H
#define XF_AVX512BF16_X16_H

#include <immintrin.h>

static inline __m256i xf_bf16x16_round(__m512 v)
{
    const __m512i bits = _mm512_castps_si512(v);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF)));
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(bits, _mm512_set1_epi32(0x00400000)));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}

// The 16 lanes of a 512-bit dot-product accumulator, summed.
static inline float xf_f32x16_hsum(__m512 v) { return _mm512_reduce_add_ps(v); }

#endif
