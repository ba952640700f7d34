#include <math.h>
#include <stdlib.h>

#include "errmodel.h"
#include "gemm_d.h"
#include "linear.h"
#include "ref_terms.h"

// x is (m,k), w is (n,k), y is (m,n)
//
// bound (componentwise, for the stage check):
//   |y - y_ref| <= gamma(k+1) (sum_p |x_p w_jp| + |b_j|) + u |y_ref| + tiny.
// gamma(k+1) covers the k products and k additions (bias included) in any
// order, with or without FMA (Higham, eq. 3.5); u |y_ref| is the final
// rounding to fp32; ReLU cannot increase the error; tiny covers gradual
// underflow, half the smallest subnormal per rounding.
//
// yvar (error model, errmodel.h): the propagated sum_p w_jp^2 xvar_p plus
// k+2 roundings (products, sums, bias, fp32 result) of at most sum |x w|.
// ReLU is 1-Lipschitz, so the variance passes through unchanged.
void xf_ref_linear_plain_d(int m, int n, int k, const double *x, const double *xvar, const float *w, const float *b,
                           int relu, double *y, double *yvar, double *bound)
{
    for (int i = 0; i < m; i++) {
        const double *xi = x + (size_t)i * k;
        for (int j = 0; j < n; j++) {
            const float *wj = w + (size_t)j * k;
            double acc = b ? b[j] : 0.0, abs_acc = b ? fabs(b[j]) : 0.0, var_in = 0.0;
            for (int p = 0; p < k; p++) {
                acc += xi[p] * wj[p];
                abs_acc += fabs(xi[p] * wj[p]);
                if (yvar) var_in += (double)wj[p] * wj[p] * xvar[(size_t)i * k + p];
            }
            size_t o = (size_t)i * n + j;
            y[o] = (relu && acc < 0.0) ? 0.0 : acc;
            if (yvar) yvar[o] = var_in + xf_linear_round_var(k, abs_acc);
            if (bound) bound[o] = xf_linear_bound(k, abs_acc, acc);
        }
    }
}

void xf_ref_linear_d(int m, int n, int k, const double *x, const double *xvar, const float *w, const float *b,
                     int relu, double *y, double *yvar, double *bound)
{
    if (xf_ref_plain()) xf_ref_linear_plain_d(m, n, k, x, xvar, w, b, relu, y, yvar, bound);
    else xf_ref_linear_fast_d(m, n, k, x, xvar, w, b, relu, y, yvar, bound);
}

// bf16 (inputs already bf16 values, fp32 accumulation, the output rounded
// to bf16): the fp32 bound with one bf16 rounding of the output
// (xf_bound_bf16_output).
void xf_ref_linear(const xf_linear_args *a, double *y_ref, double *bound)
{
    double *x = xf_widen(a->x, (size_t)a->m * a->k);
    xf_ref_linear_d(a->m, a->n, a->k, x, NULL, a->w, a->b, a->relu, y_ref, NULL, bound);
    if (a->dtype == XF_BF16) xf_bound_bf16_output(bound, y_ref, (size_t)a->m * a->n);
    free(x);
}
