#include <math.h>

#include "rmsnorm.h"

// Componentwise bound of an fp32 RMSNorm, first order. With s = sum x^2,
// ms2 = s/d + eps, rs = 1/sqrt(ms2), y = x rs g:
//   ds      <= gamma(d) s                 (d products and d-1 adds, any
//                                          order or vector split; all terms
//                                          are >= 0, so no cancellation)
//   dms2    <= gamma(d + 2) ms2           (then the divide and + eps)
//   drs/rs  <= dms2/(2 ms2) + (1 + math_ulp) u
//                                         (sqrt and divide, or rsqrt)
//   dy      <= |y| (drs/rs + gamma(2))    (x rs, then times g: either order)
// The relative bound is the same for every element of a row, so a wrong
// rs (eps left out, mean over d - 1) fails wherever it moves y by more than
// about d u / 2; the inputs' quiet rows (harness/stages/rmsnorm.c) are
// where eps matters.
// x, y are (rows,d)
void xf_ref_rmsnorm(const xf_rmsnorm_args *a, double math_ulp, double *y_ref, double *bound)
{
    const int d = a->d;
    const double rel = xf_gamma(d + 2) / 2.0 + (1.0 + math_ulp) * XF_U + xf_gamma(2);
    for (int i = 0; i < a->rows; i++) {
        const float *x = a->x + (size_t)i * d;
        double s = 0.0;
        for (int c = 0; c < d; c++) s += (double)x[c] * x[c];
        const double rs = 1.0 / sqrt(s / d + (double)XF_RMS_EPS);
        for (int c = 0; c < d; c++) {
            const double y = x[c] * rs * a->gamma[c];
            y_ref[(size_t)i * d + c] = y;
            bound[(size_t)i * d + c] = fabs(y) * rel + 0x1p-140; // the floor: subnormal outputs
        }
    }
}
