// xf_bf16_from_f32 (kernels/half.h) on every one of the 2^32 fp32 bit
// patterns against rounding done another way: the two bf16 neighbours of
// x (its truncation and the next one up in magnitude), the nearer by fp64
// distance, ties to the even one; past the largest finite bf16 the upper
// neighbour is infinity, at 2^128 for the distance. NaNs must stay NaN of
// the same sign. Also proves the comparison bites: truncation instead of
// rounding must be caught.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../kernels/half.h"

static xf_bf16 nearest_by_distance(uint32_t bits)
{
    const float x = xf_f32_from_bits(bits);
    const uint32_t lo = bits & 0xFFFF0000u, hi = lo + 0x10000u; // hi: up in magnitude
    const double vlo = xf_f32_from_bits(lo);
    const double vhi = (hi & 0x7FFFFFFFu) == 0x7F800000u ? copysign(ldexp(1.0, 128), x) : xf_f32_from_bits(hi);
    const double dlo = fabs((double)x - vlo), dhi = fabs(vhi - (double)x);
    if (dlo != dhi) return (xf_bf16)((dlo < dhi ? lo : hi) >> 16);
    return (xf_bf16)(((lo >> 16) & 1u) ? hi >> 16 : lo >> 16);
}

static int agrees(uint32_t bits, xf_bf16 got)
{
    const float x = xf_f32_from_bits(bits);
    if (isnan(x)) return isnan(xf_bf16_to_f32(got)) && (got >> 15) == (bits >> 31);
    if (isinf(x)) return got == (xf_bf16)(bits >> 16);
    return got == nearest_by_distance(bits);
}

int main(void)
{
    int caught = 0;
    for (uint32_t b = 0x3F800000u; b < 0x3F900000u && !caught; b++)
        caught = !agrees(b, (xf_bf16)(b >> 16)); // truncation
    if (!caught) {
        printf("FAIL: the comparison did not catch truncation\n");
        return 1;
    }
    uint64_t n = 0;
    for (uint64_t b = 0; b <= 0xFFFFFFFFu; b++, n++)
        if (!agrees((uint32_t)b, xf_bf16_from_f32(xf_f32_from_bits((uint32_t)b)))) {
            printf("FAIL 0x%08llx -> 0x%04x, want 0x%04x\n", (unsigned long long)b,
                   xf_bf16_from_f32(xf_f32_from_bits((uint32_t)b)), nearest_by_distance((uint32_t)b));
            return 1;
        }
    printf("all %llu fp32 patterns round to the nearest bf16, ties to even\n", (unsigned long long)n);
    return 0;
}
