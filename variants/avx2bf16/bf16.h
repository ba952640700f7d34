// bf16 in AVX2 registers: 8 bf16 widened to 8 floats (a shift: bf16 is the
// top half of fp32), and 8 floats rounded to 8 bf16, to nearest even, as
// kernels/half.h's xf_bf16_from_f32 does one at a time.
#ifndef XF_AVX2BF16_H
#define XF_AVX2BF16_H

#include <immintrin.h>

#include "../../kernels/xf_common.h"

static inline __m256 xf_bf16x8_load(const xf_bf16 *p)
{
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

// Adding 0x7FFF plus the lowest kept bit carries into the kept half
// exactly when rounding to nearest even goes up; NaNs are kept quiet
// instead (the carry could turn a NaN into infinity).
static inline __m128i xf_bf16x8_round(__m256 v)
{
    const __m256i bits = _mm256_castps_si256(v);
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF)));
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    r = _mm256_blendv_epi8(r, _mm256_or_si256(bits, _mm256_set1_epi32(0x00400000)), nan);
    r = _mm256_srli_epi32(r, 16);
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

// The sum of v's 8 lanes.
static inline float xf_f32x8_hsum(__m256 v)
{
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}

#endif
