#include <math.h>
#include <stdio.h>

#include "../kernels/half.h"
#include "check.h"

static void compare(const xf_instance *in, int o, xf_check_result *res, double *sum_err2,
                    double *sum_ref2)
{
    const float *y32 = in->out[o].data;
    const xf_bf16 *y16 = in->out[o].data16;
    const double *ref = in->ref[o], *bound = in->bound[o];
    for (size_t i = 0; i < in->out[o].count; i++) {
        const float yi = y16 ? xf_bf16_to_f32(y16[i]) : y32[i];
        double err = fabs((double)yi - ref[i]);
        if (isnan(err) || isinf(err)) {
            if (res->passed)
                snprintf(res->why, sizeof res->why, "%s[%zu] = %g, reference %.9g", in->out_name[o],
                         i, (double)yi, ref[i]);
            res->passed = 0;
            res->max_abs = res->max_rel = res->worst_ratio = INFINITY;
            continue;
        }
        *sum_err2 += err * err;
        *sum_ref2 += ref[i] * ref[i];
        if (err > res->max_abs) res->max_abs = err;
        if (ref[i] != 0.0 && err / fabs(ref[i]) > res->max_rel) res->max_rel = err / fabs(ref[i]);
        // A zero bound (a masked softmax entry, a fully masked attention
        // row) demands an exact zero: any error gives an infinite ratio.
        double ratio = err == 0.0 ? 0.0 : (bound[i] > 0.0 ? err / bound[i] : INFINITY);
        if (ratio > res->worst_ratio) res->worst_ratio = ratio;
        if (err > bound[i] && res->passed) {
            res->passed = 0;
            snprintf(res->why, sizeof res->why, "%s[%zu] = %.9g, reference %.9g, error %.3g > bound %.3g",
                     in->out_name[o], i, (double)yi, ref[i], err, bound[i]);
        }
    }
}

xf_distance xf_check_distance(const xf_instance *in, const xf_instance *f32)
{
    double max_err = 0.0, max_ref = 0.0, sum_err2 = 0.0, sum_ref2 = 0.0;
    for (int o = 0; o < in->nout; o++)
        for (size_t i = 0; i < in->out[o].count; i++) {
            const double y = in->out[o].data16 ? xf_bf16_to_f32(in->out[o].data16[i]) : in->out[o].data[i];
            const double r = f32->ref[o][i], err = fabs(y - r);
            if (err > max_err || isnan(err)) max_err = err;
            if (fabs(r) > max_ref) max_ref = fabs(r);
            sum_err2 += err * err, sum_ref2 += r * r;
        }
    return (xf_distance){max_ref > 0.0 ? max_err / max_ref : max_err, sum_ref2 > 0.0 ? sum_err2 / sum_ref2 : sum_err2};
}

void xf_check_run(xf_runner *r, xf_instance *in, xf_check_result *res)
{
    *res = (xf_check_result){.passed = 1};
    for (int o = 0; o < in->nout; o++) xf_guarded_poison(&in->out[o]);
    xf_runner_run(r, in);
    for (int o = 0; o < in->nout; o++) {
        long at;
        if (!xf_guarded_intact(&in->out[o], &at)) {
            res->passed = 0;
            res->max_abs = res->max_rel = res->nmse = res->worst_ratio = INFINITY;
            snprintf(res->why, sizeof res->why, "wrote outside %s: guard zone damaged at element %ld of %zu",
                     in->out_name[o], at, in->out[o].count);
            return;
        }
    }
    xf_instance_reference(in, r->math_ulp, r->p_bf16);
    double sum_err2 = 0.0, sum_ref2 = 0.0;
    for (int o = 0; o < in->nout; o++) compare(in, o, res, &sum_err2, &sum_ref2);
    if (res->max_abs != INFINITY) res->nmse = sum_ref2 > 0.0 ? sum_err2 / sum_ref2 : sum_err2;
    else res->nmse = INFINITY;
}
