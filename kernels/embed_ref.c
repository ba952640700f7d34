#include <math.h>

#include "embed.h"
#include "errmodel.h"

double xf_pe_angle(int pos, int col, int d_model)
{
    int two_i = col & ~1;
    return pos / pow(10000.0, (double)two_i / d_model);
}

// y is (batch,seq,d_model)
//
// Error of an fp32 evaluation, element by element, the terms shared by the
// bound (their sum) and the error-model variance (their squares, u^2/3):
// - E * sqrt(d): sqrt(d) rounded once, the product once: 2u |E sqrt(d)|.
// - the angle theta = pos * w, w = 10000^(-2i/d) = exp(-(2i/d) ln 10000):
//   the exponent is off by 3u |ln w| (division, ln 10000, product), exp or
//   pow adds math_ulp u relative, the product with pos u relative: theta is
//   off by |theta| (3 |ln w| + math_ulp + 1) u. sin and cos are 1-Lipschitz.
// - sin/cos add math_ulp ulps of a value <= 1, at most math_ulp u.
// - the final add u |y| <= u (|E sqrt(d)| + 1).
// A PE table computed in prepare in fp64 and rounded once is well inside.
void xf_ref_embed(const xf_embed_args *a, double math_ulp, double *y, double *bound,
                  double *var)
{
    const double scale = sqrt((double)a->d_model);
    for (int b = 0; b < a->batch; b++)
        for (int s = 0; s < a->seq; s++) {
            const float *row = a->table + (size_t)a->ids[b * a->seq + s] * a->d_model;
            size_t base = ((size_t)b * a->seq + s) * a->d_model;
            for (int c = 0; c < a->d_model; c++) {
                double theta = xf_pe_angle(a->pos0 + s, c, a->d_model);
                y[base + c] = row[c] * scale + ((c % 2 == 0) ? sin(theta) : cos(theta));
                double ln_w = -((double)(c & ~1) / a->d_model) * log(10000.0);
                double pe = theta * (3.0 * fabs(ln_w) + math_ulp + 1.0) + math_ulp;
                double e = fabs(row[c] * scale);
                if (bound) bound[base + c] = XF_U * (2.0 * e + pe + e + 1.0) + 0x1p-149;
                if (var) var[base + c] = XF_VAR_U2 * (2.0 * e * e + pe * pe + (e + 1.0) * (e + 1.0));
            }
        }
    // bf16: computed in fp32, stored in bf16
    if (bound && a->dtype == XF_BF16) xf_bound_bf16_output(bound, y, (size_t)a->batch * a->seq * a->d_model);
}
