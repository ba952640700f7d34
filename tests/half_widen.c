// Every fp16 and every bf16 bit pattern widened by kernels/half.h against
// the value its fields define, computed independently with ldexp:
// (-1)^s (1 + m / 2^M) 2^(e - bias), subnormals m 2^(1 - bias - M), the
// top exponent infinity or NaN (NaN only checked to stay NaN of the same
// sign). Exit 1 on the first difference, or if a widening that flushes
// subnormals passes.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../kernels/half.h"

static double field_value(unsigned bits, int exp_bits, int man_bits)
{
    const unsigned man = bits & ((1u << man_bits) - 1), exp = (bits >> man_bits) & ((1u << exp_bits) - 1);
    const int bias = (1 << (exp_bits - 1)) - 1, sign = (bits >> (exp_bits + man_bits)) & 1;
    double v;
    if (exp == (1u << exp_bits) - 1) v = man ? NAN : INFINITY;
    else if (exp == 0) v = ldexp((double)man, 1 - bias - man_bits);
    else v = ldexp(1.0 + ldexp((double)man, -man_bits), (int)exp - bias);
    return sign ? -v : v;
}

static int same(double want, float got)
{
    if (isnan(want)) return isnan(got) && !signbit(want) == !signbit(got);
    return want == (double)got && !signbit(want) == !signbit(got);
}

// A widening that bites where a quick one goes wrong: subnormals flushed
// to zero. The comparison must catch it, or it proves nothing.
static float f16_flushing_subnormals(uint16_t h)
{
    return (h & 0x7C00) == 0 ? ((h >> 15) ? -0.0f : 0.0f) : xf_f16_to_f32(h);
}

int main(void)
{
    int caught = 0;
    for (unsigned h = 0; h < 65536 && !caught; h++)
        caught = !same(field_value(h, 5, 10), f16_flushing_subnormals((uint16_t)h));
    if (!caught) {
        printf("FAIL: the comparison did not catch fp16 subnormals flushed to zero\n");
        return 1;
    }
    for (unsigned h = 0; h < 65536; h++) {
        const double f16 = field_value(h, 5, 10), bf16 = field_value(h, 8, 7);
        if (!same(f16, xf_f16_to_f32((uint16_t)h))) {
            printf("FAIL f16 0x%04x: %.9g, want %.9g\n", h, (double)xf_f16_to_f32((uint16_t)h), f16);
            return 1;
        }
        if (!same(bf16, xf_bf16_to_f32((uint16_t)h))) {
            printf("FAIL bf16 0x%04x: %.9g, want %.9g\n", h, (double)xf_bf16_to_f32((uint16_t)h), bf16);
            return 1;
        }
    }
    printf("all 65536 fp16 and 65536 bf16 patterns widen exactly\n");
    return 0;
}
