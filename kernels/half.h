// The 16-bit floats model files store (safetensors "BF16", "F16"), widened
// to fp32 exactly: every bf16 and every fp16 value is an fp32 value; and
// fp32 rounded to bf16, to nearest even, as PyTorch and oneDNN round.
// bf16 is fp32's top half (8 exponent bits, 7 mantissa bits); fp16 is
// IEEE binary16 (5 exponent bits, 10 mantissa bits), whose subnormals are
// fp32 normals.
#ifndef XF_HALF_H
#define XF_HALF_H

#include <stdint.h>
#include <string.h>

#include "xf_common.h"

static inline float xf_f32_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline float xf_bf16_to_f32(uint16_t h) { return xf_f32_from_bits((uint32_t)h << 16); }

// NaNs come back quiet, sign and payload kept (as vcvtph2ps does).
static inline float xf_f16_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023;
    if (exp == 31) return xf_f32_from_bits(sign | 0x7F800000u | (man ? 0x00400000u | man << 13 : 0));
    if (exp == 0) { // zero or subnormal: man * 2^-24, exact in fp32
        const float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return xf_f32_from_bits(sign | (exp - 15 + 127) << 23 | man << 13);
}

// fp32 -> bf16, round to nearest, ties to even: adding 0x7FFF plus the
// lowest kept bit carries into the kept half exactly when the dropped half
// is above the tie, or at it with an odd kept half; a carry out of the
// mantissa steps the exponent, up to infinity past the largest finite
// bf16. NaNs stay NaN (quiet bit set, sign kept): rounding could
// otherwise carry a NaN's payload into infinity.
static inline xf_bf16 xf_bf16_from_f32(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return (xf_bf16)((bits >> 16) | 0x0040u);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return (xf_bf16)(bits >> 16);
}

// f rounded to bf16 and widened back: the fp32 value a bf16 instance holds.
static inline float xf_round_bf16(float f) { return xf_bf16_to_f32(xf_bf16_from_f32(f)); }

#endif
