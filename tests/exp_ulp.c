// Measures xv_exp's error, in ulps of the exact result, on every float of
// the range softmax feeds it (max-subtracted arguments, -87.33 to 0; below,
// results are flushed to exactly 0, which the bound's absolute floor
// covers), and xv_exp2's on [-126, 0] (the fused attention's base-2
// exponents), and fails if either exceeds XF_SIMD_EXP_ULP, the error the
// family declares to the checker. Built once per SIMD family.
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../variants/simd/simd.h"

static double ulp_of(double v) { return ldexp(1.0, ilogb(v) - 23); }

// The largest error in ulps of f against exact over every float of the
// bit patterns lo..hi (negative floats: from -|lo| down to -|hi|), XV_W at a
// time; *at: where it was.
static double worst_ulp(xv (*f)(xv), double (*exact)(double), uint32_t lo, uint32_t hi, float *at,
                        uint64_t *count)
{
    double worst = 0.0;
    for (uint64_t u = lo; u <= hi; u += XV_W) {
        float x[XV_W], y[XV_W];
        for (int i = 0; i < XV_W; i++) {
            uint32_t bits = (uint32_t)(u + i > hi ? hi : u + i);
            memcpy(&x[i], &bits, 4);
        }
        xv_store(y, f(xv_load(x)));
        for (int i = 0; i < XV_W; i++) {
            double e = exact((double)x[i]);
            double err = fabs((double)y[i] - e) / ulp_of(e);
            if (err > worst) worst = err, *at = x[i];
        }
        *count += XV_W;
    }
    return worst;
}

static xv exp_e(xv x) { return xv_exp(x); }
static xv exp_2(xv x) { return xv_exp2(x); }
// A planted bug, to prove the measurement bites: xv_exp2 times
// (1 - 1e-5 x), off by up to 1e-5 relative on [-1, -0.5] (about 84 ulp),
// as a coefficient a little wrong would be.
static xv exp_2_planted(xv x) { return xv_mul(xv_exp2(x), xv_fma(x, xv_set1(-1e-5f), xv_set1(1.0f))); }

int main(int argc, char **argv)
{
    const char *why = xf_isa_unavailable(XF_FAMILY_ISA);
    if (why) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    if (argc > 1 && strcmp(argv[1], "--planted") == 0) { // [-1, -0.5] is enough to see it
        float at = 0.0f;
        uint64_t n = 0;
        const double worst = worst_ulp(exp_2_planted, exp2, 0xBF000000u, 0xBF800000u, &at, &n);
        printf("%s planted xv_exp2: max error %.3f ulp at x = %.9g over %llu floats in [-1, -0.5]; declared %.1f\n",
               XF_FAMILY_NAME, worst, (double)at, (unsigned long long)n, XF_SIMD_EXP_ULP);
        return worst <= XF_SIMD_EXP_ULP ? 0 : 1;
    }
    // Negative floats from -0 down to -87.33 are the bit patterns
    // 0x80000000 .. 0xC2AEAC4F; xv_exp2 (the fused attention's, fed
    // base-2 exponents) down to -126, 0xC2FC0000.
    float at_e = 0.0f, at_2 = 0.0f;
    uint64_t n_e = 0, n_2 = 0;
    const double worst_e = worst_ulp(exp_e, exp, 0x80000000u, 0xC2AEAC4Fu, &at_e, &n_e);
    const double worst_2 = worst_ulp(exp_2, exp2, 0x80000000u, 0xC2FC0000u, &at_2, &n_2);
    printf("%s xv_exp: max error %.3f ulp at x = %.9g over %llu floats in [-87.33, 0]; declared %.1f\n",
           XF_FAMILY_NAME, worst_e, (double)at_e, (unsigned long long)n_e, XF_SIMD_EXP_ULP);
    printf("%s xv_exp2: max error %.3f ulp at x = %.9g over %llu floats in [-126, 0]; declared %.1f\n",
           XF_FAMILY_NAME, worst_2, (double)at_2, (unsigned long long)n_2, XF_SIMD_EXP_ULP);
    return worst_e <= XF_SIMD_EXP_ULP && worst_2 <= XF_SIMD_EXP_ULP ? 0 : 1;
}
