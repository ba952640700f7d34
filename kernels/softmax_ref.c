#include <math.h>
#include <stdlib.h>

#include "softmax.h"

int xf_ref_softmax_row(int n, const double *t, const uint8_t *pad_row, int causal, int i,
                       double *p)
{
    double max = -INFINITY;
    int visible = 0;
    for (int j = 0; j < n; j++)
        if (xf_key_visible(pad_row, causal, i, j)) {
            visible++;
            if (t[j] > max) max = t[j];
        }
    double sum = 0.0;
    for (int j = 0; j < n; j++) {
        p[j] = xf_key_visible(pad_row, causal, i, j) ? exp(t[j] - max) : 0.0;
        sum += p[j];
    }
    // No visible key: the row is defined as zeros (docs/design.md, Masking), never 0/0.
    for (int j = 0; j < n; j++) p[j] = visible ? p[j] / sum : 0.0;
    return visible;
}

// For visible key j, the fp32 exp argument a_j = t_j - max is off by
//   eps_j = t_err_j + max_l t_err_l     (scores already off on entry)
//         + u (|t_j| + |max| + |a_j|)   (scaling t_j, scaling max, subtracting)
//         + math_ulp u                  (exp itself, relative)
// and, as exp(a + d) = exp(a)(1 + d + O(d^2)), the computed exp is off by
// eps_j relative (first order). This also covers (x_j - x_max) * scale.
double xf_softmax_arg_error(int n, const double *t, const double *t_err,
                            const uint8_t *pad_row, int causal, int i, double math_ulp,
                            double *eps)
{
    double max = -INFINITY, max_err = 0.0;
    for (int j = 0; j < n; j++)
        if (xf_key_visible(pad_row, causal, i, j)) {
            if (t[j] > max) max = t[j];
            if (t_err && t_err[j] > max_err) max_err = t_err[j];
        }
    double worst = 0.0;
    for (int j = 0; j < n; j++) {
        eps[j] = 0.0;
        if (!xf_key_visible(pad_row, causal, i, j)) continue;
        double arg = t[j] - max;
        eps[j] = (t_err ? t_err[j] : 0.0) + max_err +
                 XF_U * (fabs(t[j]) + fabs(max) + fabs(arg) + math_ulp);
        if (eps[j] > worst) worst = eps[j];
    }
    return worst;
}

// x and y are (batch,heads,seq_q,seq_k)
//
// bound: y_j = e_j / sum_l e_l. With e_j off by eps_j relative
// (xf_softmax_arg_error), the sum of n visible terms is off by at most
// max eps + gamma(n) relative, and the division (or multiplication by a
// reciprocal) adds 2u:
//   |y_j - y_ref_j| <= y_ref_j (eps_j + max eps + gamma(n) + 2u) + tiny,
// tiny = 2^-126 because a variant may flush an underflowing exp to zero.
// Masked entries get bound 0: they must be exactly 0.
void xf_ref_softmax(const xf_softmax_args *a, double math_ulp, double *y_ref, double *bound)
{
    double *t = malloc((size_t)a->seq_k * sizeof *t);
    double *eps = malloc((size_t)a->seq_k * sizeof *eps);
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++)
            for (int i = 0; i < a->seq_q; i++) {
                size_t row = (((size_t)b * a->heads + h) * a->seq_q + i) * a->seq_k;
                const double *p = y_ref + row;
                for (int j = 0; j < a->seq_k; j++) t[j] = (double)a->scale * a->x[row + j];
                int n = xf_ref_softmax_row(a->seq_k, t, pad, a->causal, i, y_ref + row);
                if (!bound) continue;
                double worst = xf_softmax_arg_error(a->seq_k, t, NULL, pad, a->causal, i,
                                                    math_ulp, eps);
                for (int j = 0; j < a->seq_k; j++)
                    bound[row + j] = xf_key_visible(pad, a->causal, i, j)
                        ? p[j] * (eps[j] + worst + xf_gamma(n) + 2.0 * XF_U) + 0x1p-126
                        : 0.0;
            }
    }
    // bf16: computed in fp32 from the bf16 scores, each probability rounded
    // once (a masked one is an exact 0 either way)
    if (bound && a->dtype == XF_BF16)
        xf_bound_bf16_output(bound, y_ref, (size_t)a->batch * a->heads * a->seq_q * a->seq_k);
    free(t);
    free(eps);
}

