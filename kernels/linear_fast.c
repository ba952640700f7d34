// linear_ref.c's sums as three GEMMs (gemm_d.h): for output (i,j) the value
// sum_p x_ip w_jp, the magnitude sum_p |x_ip w_jp| (the bound's and the
// model's rounding scale) and the propagated variance sum_p w_jp^2 xvar_ip;
// then the same per-element formulas as the plain loops.
#include <math.h>
#include <stdlib.h>

#include "errmodel.h"
#include "gemm_d.h"
#include "linear.h"
#include "ref_terms.h"

// x is (m,k), w is (n,k), y is (m,n)
void xf_ref_linear_fast_d(int m, int n, int k, const double *x, const double *xvar, const float *w, const float *b,
                          int relu, double *y, double *yvar, double *bound)
{
    const size_t xs = (size_t)m * k, ws = (size_t)n * k, ys = (size_t)m * n;
    double *wd = malloc(ws * sizeof *wd), *xa = malloc(xs * sizeof *xa), *abs_acc = malloc(ys * sizeof *abs_acc);
#pragma omp parallel for num_threads(xf_ref_threads()) if (ws > 65536)
    for (size_t i = 0; i < ws; i++) wd[i] = w[i];
#pragma omp parallel for num_threads(xf_ref_threads()) if (xs > 65536)
    for (size_t i = 0; i < xs; i++) xa[i] = fabs(x[i]);
    // w read as (k,n): row stride 1, column stride k.
    xf_gemm_d(m, n, k, x, (size_t)k, 1, wd, 1, (size_t)k, y, (size_t)n);
    if (yvar) {
        for (size_t i = 0; i < ws; i++) wd[i] = (double)w[i] * w[i];
        xf_gemm_d(m, n, k, xvar, (size_t)k, 1, wd, 1, (size_t)k, yvar, (size_t)n);
    }
    for (size_t i = 0; i < ws; i++) wd[i] = fabs((double)w[i]);
    xf_gemm_d(m, n, k, xa, (size_t)k, 1, wd, 1, (size_t)k, abs_acc, (size_t)n);
#pragma omp parallel for num_threads(xf_ref_threads()) if (ys > 65536)
    for (size_t o = 0; o < ys; o++) {
        const int j = (int)(o % (size_t)n);
        const double acc = y[o] + (b ? b[j] : 0.0), abs_o = abs_acc[o] + (b ? fabs(b[j]) : 0.0);
        y[o] = (relu && acc < 0.0) ? 0.0 : acc;
        if (yvar) yvar[o] += xf_linear_round_var(k, abs_o);
        if (bound) bound[o] = xf_linear_bound(k, abs_o, acc);
    }
    free(wd);
    free(xa);
    free(abs_acc);
}
