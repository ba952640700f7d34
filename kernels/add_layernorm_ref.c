#include <math.h>
#include <stdlib.h>

#include "add_layernorm.h"
#include "errmodel.h"

// Componentwise bound (bound != NULL) of a two-pass (or Welford) LayerNorm
// in fp32, first order. With v = x + r, mean m, c = v - m,
// s2 = mean(c^2) + eps, y = c/sqrt(s2) g + b:
//   dv_c   <= u|v_c|                          (the add)
//   dm     <= gamma(d+2) mean|v|              (the adds were off by u|v| each,
//                                              d-1 sums, the division)
//   dc_c   <= dv_c + dm + u|c_c|
//   ds2    <= 2 mean(|c| dc) + gamma(d+3) s2  (squares, sum, divide, + eps)
//   drs/rs <= ds2/(2 s2) + (1 + math_ulp) u   (sqrt and divide, or rsqrt)
//   dy_c   <= |g| (dc_c + |c| drs/rs)/sqrt(s2) + u(2|c g|/sqrt(s2) + |y|)
// A one-pass E[v^2] - E[v]^2 variance is not covered: it cancels
// catastrophically when |mean| >> stddev, and failing it is intended.
static void row_bound(int d, const double *v, double mean, double abs_mean, double s2,
                      const float *gamma, const float *beta, double math_ulp, double *bound)
{
    double dm = xf_gamma(d + 2) * abs_mean, cdc = 0.0;
    for (int c = 0; c < d; c++)
        cdc += fabs(v[c] - mean) * (XF_U * fabs(v[c]) + dm + XF_U * fabs(v[c] - mean));
    double ds2 = 2.0 * cdc / d + xf_gamma(d + 3) * s2;
    double rs_rel = ds2 / (2.0 * s2) + (1.0 + math_ulp) * XF_U;
    double sigma = sqrt(s2);
    for (int c = 0; c < d; c++) {
        double cc = v[c] - mean, g = fabs(gamma[c]);
        double dc = XF_U * fabs(v[c]) + dm + XF_U * fabs(cc);
        double y = cc / sigma * gamma[c] + beta[c];
        bound[c] = g * (dc + fabs(cc) * rs_rel) / sigma +
                   XF_U * (2.0 * fabs(cc) * g / sigma + fabs(y)) + 0x1p-140;
    }
}

// Error-model variance (yvar != NULL, errmodel.h). Input errors: c_hat =
// (v - mean)/sigma has Jacobian (I - 11^T/d - c_hat c_hat^T/d)/sigma; with
// independent input errors of variance in_c its diagonal term gives in_c,
// the two rank-one terms sum(in)/d^2 and c_hat_c^2 sum(c_hat^2 in)/d^2.
// Roundings: the add (u|v|), the mean (d+1 roundings of mean|v|, shared by
// the row), the subtraction; the variance (d+3 roundings relative, halved
// by the square root) and rsqrt (1 + math_ulp); normalise, scale, shift.
static void row_variance(int d, const double *v, const double *in_var, double mean,
                         double abs_mean, double sigma, const float *gamma, const double *y,
                         double math_ulp, double *yvar)
{
    double sum_in = 0.0, sum_chat_in = 0.0;
    for (int c = 0; c < d; c++) {
        double chat = (v[c] - mean) / sigma;
        sum_in += in_var[c];
        sum_chat_in += chat * chat * in_var[c];
    }
    for (int c = 0; c < d; c++) {
        double chat = (v[c] - mean) / sigma, g2 = (double)gamma[c] * gamma[c];
        double prop = (in_var[c] + (sum_in + chat * chat * sum_chat_in) / ((double)d * d)) /
                      (sigma * sigma);
        double round = (2.0 * v[c] * v[c] + (d + 1.0) * abs_mean * abs_mean) / (sigma * sigma) +
                       chat * chat * ((d + 3.0) / 4.0 + (1.0 + math_ulp) * (1.0 + math_ulp) + 2.0);
        yvar[c] = g2 * (prop + XF_VAR_U2 * round) + XF_VAR_U2 * y[c] * y[c];
    }
}

// x, r, y are (rows,d)
void xf_ref_add_layernorm_d(int rows, int d, const double *x, const double *r,
                            const double *xvar, const double *rvar, const float *gamma,
                            const float *beta, double math_ulp, double *y, double *yvar,
                            double *bound)
{
    double *v = malloc((size_t)d * sizeof *v), *in_var = malloc((size_t)d * sizeof *in_var);
    for (int i = 0; i < rows; i++) {
        size_t row = (size_t)i * d;
        double mean = 0.0, abs_mean = 0.0, var = 0.0;
        for (int c = 0; c < d; c++) {
            v[c] = x[row + c] + r[row + c];
            mean += v[c];
            abs_mean += fabs(v[c]);
        }
        mean /= d;
        abs_mean /= d;
        for (int c = 0; c < d; c++) var += (v[c] - mean) * (v[c] - mean);
        var /= d;
        const double s2 = var + XF_LN_EPS, sigma = sqrt(s2);
        for (int c = 0; c < d; c++) y[row + c] = (v[c] - mean) / sigma * gamma[c] + beta[c];
        if (bound) row_bound(d, v, mean, abs_mean, s2, gamma, beta, math_ulp, bound + row);
        if (yvar) {
            for (int c = 0; c < d; c++) in_var[c] = xvar[row + c] + rvar[row + c];
            row_variance(d, v, in_var, mean, abs_mean, sigma, gamma, y + row, math_ulp, yvar + row);
        }
    }
    free(v);
    free(in_var);
}

void xf_ref_add_layernorm(const xf_add_layernorm_args *a, double math_ulp, double *y_ref,
                          double *bound)
{
    size_t count = (size_t)a->rows * a->d;
    double *x = xf_widen(a->x, count), *r = xf_widen(a->r, count);
    xf_ref_add_layernorm_d(a->rows, a->d, x, r, NULL, NULL, a->gamma, a->beta, math_ulp, y_ref,
                           NULL, bound);
    if (a->dtype == XF_BF16) xf_bound_bf16_output(bound, y_ref, count); // computed in fp32, stored in bf16
    free(x);
    free(r);
}
