#include <math.h>
#include <stdlib.h>

#include "errmodel.h"
#include "linear.h"

// x is (m,k), w is (n,k), y is (m,n)
void xf_ref_linear_d(int m, int n, int k, const double *x, const double *xvar,
                     const float *w, const float *b, int relu, double *y, double *yvar)
{
    for (int i = 0; i < m; i++) {
        const double *xi = x + (size_t)i * k;
        for (int j = 0; j < n; j++) {
            const float *wj = w + (size_t)j * k;
            double acc = b ? b[j] : 0.0, abs_acc = b ? fabs(b[j]) : 0.0, var_in = 0.0;
            for (int p = 0; p < k; p++) {
                acc += xi[p] * wj[p];
                if (yvar) {
                    abs_acc += fabs(xi[p] * wj[p]);
                    var_in += (double)wj[p] * wj[p] * xvar[(size_t)i * k + p];
                }
            }
            // ReLU is 1-Lipschitz, so it passes input errors through at most
            // unchanged; the variance is kept as is.
            y[(size_t)i * n + j] = (relu && acc < 0.0) ? 0.0 : acc;
            if (yvar) {
                // k products, k-1 additions, the bias addition and the final
                // rounding to fp32: k+2 roundings, each of at most abs_acc.
                yvar[(size_t)i * n + j] = var_in + XF_VAR_U2 * (k + 2) * abs_acc * abs_acc;
            }
        }
    }
}

void xf_ref_linear(const xf_linear_args *a, double *y_ref)
{
    size_t nx = (size_t)a->m * a->k;
    double *x = malloc(nx * sizeof *x);
    for (size_t i = 0; i < nx; i++) x[i] = a->x[i];
    xf_ref_linear_d(a->m, a->n, a->k, x, NULL, a->w, a->b, a->relu, y_ref, NULL);
    free(x);
}

// |y - y_ref| <= gamma(k+1) (sum_p |x_p w_jp| + |b_j|) + u |y_ref| + tiny.
// gamma(k+1) covers the k products and k additions (bias included) in any
// order, with or without FMA (Higham, eq. 3.5); u |y_ref| is the final
// rounding to fp32. ReLU cannot increase the error. tiny covers gradual
// underflow: each of the k+1 roundings may add at most half the smallest
// subnormal.
void xf_bound_linear(const xf_linear_args *a, double *bound)
{
    const double tiny = (a->k + 1) * 0x1p-150;
    for (int i = 0; i < a->m; i++) {
        const float *xi = a->x + (size_t)i * a->k;
        for (int j = 0; j < a->n; j++) {
            const float *wj = a->w + (size_t)j * a->k;
            double abs_acc = a->b ? fabs(a->b[j]) : 0.0, acc = a->b ? a->b[j] : 0.0;
            for (int p = 0; p < a->k; p++) {
                abs_acc += fabs((double)xi[p] * wj[p]);
                acc += (double)xi[p] * wj[p];
            }
            bound[(size_t)i * a->n + j] = xf_gamma(a->k + 1) * abs_acc + XF_U * fabs(acc) + tiny;
        }
    }
}
