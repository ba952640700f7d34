// Measures xv_exp's error, in ulps of the exact result, on every float of
// the range softmax feeds it (max-subtracted arguments, -87.33 to 0; below,
// results are flushed to exactly 0, which the bound's absolute floor
// covers), and fails if it exceeds XF_SIMD_EXP_ULP, the error the family
// declares to the checker. Built once per SIMD family.
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../variants/simd/simd.h"

static double ulp_of(double v) { return ldexp(1.0, ilogb(v) - 23); }

int main(void)
{
    const char *why = xf_isa_unavailable(XF_FAMILY_ISA);
    if (why) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    // Negative floats from -0 down to -87.33 are the bit patterns
    // 0x80000000 .. 0xC2AEAC4F, walked XV_W at a time.
    const uint32_t lo = 0x80000000u, hi = 0xC2AEAC4Fu;
    double worst = 0.0;
    float worst_x = 0.0f;
    uint64_t count = 0;
    for (uint64_t u = lo; u <= hi; u += XV_W) {
        float x[XV_W], y[XV_W];
        for (int i = 0; i < XV_W; i++) {
            uint32_t bits = (uint32_t)(u + i > hi ? hi : u + i);
            memcpy(&x[i], &bits, 4);
        }
        xv_store(y, xv_exp(xv_load(x)));
        for (int i = 0; i < XV_W; i++) {
            double e = exp((double)x[i]);
            double err = fabs((double)y[i] - e) / ulp_of(e);
            if (err > worst) worst = err, worst_x = x[i];
        }
        count += XV_W;
    }
    printf("%s xv_exp: max error %.3f ulp at x = %.9g over %llu floats in [-87.33, 0]; declared %.1f\n",
           XF_FAMILY_NAME, worst, (double)worst_x, (unsigned long long)count, XF_SIMD_EXP_ULP);
    return worst <= XF_SIMD_EXP_ULP ? 0 : 1;
}
