#include <math.h>
#include <stdlib.h>

#include "add_layernorm.h"
#include "errmodel.h"

// x, r, y are (rows,d)
void xf_ref_add_layernorm_d(int rows, int d, const double *x, const double *r,
                            const double *xvar, const double *rvar, const float *gamma,
                            const float *beta, double math_ulp, double *y, double *yvar)
{
    for (int i = 0; i < rows; i++) {
        const double *xi = x + (size_t)i * d, *ri = r + (size_t)i * d;
        double *yi = y + (size_t)i * d;
        double mean = 0.0, abs_mean = 0.0, var = 0.0;
        for (int c = 0; c < d; c++) {
            mean += xi[c] + ri[c];
            abs_mean += fabs(xi[c] + ri[c]);
        }
        mean /= d;
        abs_mean /= d;
        for (int c = 0; c < d; c++) var += (xi[c] + ri[c] - mean) * (xi[c] + ri[c] - mean);
        var /= d;
        const double sigma = sqrt(var + XF_LN_EPS);
        for (int c = 0; c < d; c++) yi[c] = (xi[c] + ri[c] - mean) / sigma * gamma[c] + beta[c];
        if (!yvar) continue;
        // Input errors: c_hat = (v - mean)/sigma has Jacobian
        // (I - 11^T/d - c_hat c_hat^T/d)/sigma; with independent input errors
        // of variance in_var_c its diagonal term gives in_var_c, the two
        // rank-one terms sum(in_var)/d^2 and c_hat_c^2 sum(c_hat^2 in_var)/d^2.
        double sum_in = 0.0, sum_chat_in = 0.0;
        for (int c = 0; c < d; c++) {
            double in = xvar[(size_t)i * d + c] + rvar[(size_t)i * d + c];
            double chat = (xi[c] + ri[c] - mean) / sigma;
            sum_in += in;
            sum_chat_in += chat * chat * in;
        }
        for (int c = 0; c < d; c++) {
            double v = xi[c] + ri[c], chat = (v - mean) / sigma, g2 = (double)gamma[c] * gamma[c];
            double in = xvar[(size_t)i * d + c] + rvar[(size_t)i * d + c];
            double prop = (in + (sum_in + chat * chat * sum_chat_in) / ((double)d * d)) /
                          (sigma * sigma);
            // Roundings: the add (u|v|), the mean (d+1 roundings of mean|v|,
            // shared by the row), the subtraction; the variance (d+3
            // roundings relative, halved by the square root) and rsqrt
            // (1 + math_ulp); the normalise, scale and shift products.
            double round = (v * v + (d + 1.0) * abs_mean * abs_mean + v * v) / (sigma * sigma) +
                           chat * chat * ((d + 3.0) / 4.0 + (1.0 + math_ulp) * (1.0 + math_ulp) + 2.0);
            yvar[(size_t)i * d + c] = g2 * (prop + XF_VAR_U2 * round) + XF_VAR_U2 * yi[c] * yi[c];
        }
    }
}

static double *widen(const float *src, size_t count)
{
    double *dst = malloc(count * sizeof *dst);
    for (size_t i = 0; i < count; i++) dst[i] = src[i];
    return dst;
}

void xf_ref_add_layernorm(const xf_add_layernorm_args *a, double *y_ref)
{
    size_t count = (size_t)a->rows * a->d;
    double *x = widen(a->x, count), *r = widen(a->r, count);
    xf_ref_add_layernorm_d(a->rows, a->d, x, r, NULL, NULL, a->gamma, a->beta, 0.0, y_ref, NULL);
    free(x);
    free(r);
}

// First-order bound for a two-pass (or Welford) LayerNorm in fp32. With
// v = x + r, mean m, c = v - m, s2 = mean(c^2) + eps, y = c/sqrt(s2) g + b:
//   dv_c  <= u|v_c|                          (the add)
//   dm    <= gamma(d+2) mean|v|              (the adds were off by u|v| each,
//                                             d-1 sums, the division)
//   dc_c  <= dv_c + dm + u|c_c|
//   ds2   <= 2 mean(|c| dc) + gamma(d+3) s2  (squares, sum, divide, + eps)
//   drs/rs<= ds2/(2 s2) + (1 + math_ulp) u   (sqrt and divide, or rsqrt)
//   dy_c  <= |g| (dc_c + |c| drs/rs)/sqrt(s2) + u(2|c g|/sqrt(s2) + |y|)
// A one-pass E[v^2] - E[v]^2 variance is not covered: it cancels
// catastrophically when |mean| >> stddev, and failing it is intended.
void xf_bound_add_layernorm(const xf_add_layernorm_args *a, double math_ulp, double *bound)
{
    const int d = a->d;
    for (int i = 0; i < a->rows; i++) {
        const float *xi = a->x + (size_t)i * d, *ri = a->r + (size_t)i * d;
        double mean = 0.0, abs_mean = 0.0;
        for (int c = 0; c < d; c++) {
            double v = (double)xi[c] + ri[c];
            mean += v;
            abs_mean += fabs(v);
        }
        mean /= d;
        abs_mean /= d;
        double dm = xf_gamma(d + 2) * abs_mean, s2 = 0.0, cdc = 0.0;
        for (int c = 0; c < d; c++) {
            double v = (double)xi[c] + ri[c], cc = v - mean;
            s2 += cc * cc;
            cdc += fabs(cc) * (XF_U * fabs(v) + dm + XF_U * fabs(cc));
        }
        s2 = s2 / d + XF_LN_EPS;
        double ds2 = 2.0 * cdc / d + xf_gamma(d + 3) * s2;
        double rs_rel = ds2 / (2.0 * s2) + (1.0 + math_ulp) * XF_U;
        double sigma = sqrt(s2);
        for (int c = 0; c < d; c++) {
            double v = (double)xi[c] + ri[c], cc = v - mean, g = fabs(a->gamma[c]);
            double dc = XF_U * fabs(v) + dm + XF_U * fabs(cc);
            double y = cc / sigma * a->gamma[c] + a->beta[c];
            bound[(size_t)i * d + c] = g * (dc + fabs(cc) * rs_rel) / sigma +
                                       XF_U * (2.0 * fabs(cc) * g / sigma + fabs(y)) + 0x1p-140;
        }
    }
}
