#include <math.h>
#include <stdlib.h>

#include "attention.h"
#include "errmodel.h"
#include "gemm_d.h"
#include "ref_terms.h"
#include "softmax.h"

typedef struct {
    double *t, *p, *eps, *t_err, *s_var;
} row_scratch;

static row_scratch scratch_new(int n)
{
    size_t bytes = (size_t)n * sizeof(double);
    row_scratch r = {malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes)};
    return r;
}

static void scratch_free(row_scratch *r)
{
    free(r->t);
    free(r->p);
    free(r->eps);
    free(r->t_err);
    free(r->s_var);
}

// Componentwise bound of one output element (bound != NULL):
// - score s_j = q.k_j / sqrt(dk): the dot product is off by gamma(dk) |q||k_j|,
//   the scale (computed in fp32) and the product add 2u: t_err_j =
//   (gamma(dk) + 2u) |q||k_j| / sqrt(dk).
// - softmax: p_j off by p_j (eps_j + max eps + gamma(n) + 2u), eps_j from
//   xf_softmax_arg_error with t_err (softmax_ref.c).
// - P V: sum_j |dp_j| |v_jd|, plus gamma(2n) sum_j p_j |v_jd| for the n-term
//   sum and up to n online-softmax rescalings of the accumulator, plus the
//   final rounding u |out_d|.
// Fully masked rows get bound 0: they must be exactly 0.
//
// Error-model variance (outvar != NULL, errmodel.h):
// d out = sum_j p_j (d s_j + d e_j)(v_j - out) + sum_j p_j d v_j (the
// softmax normalisation turns a score error into p_j (ds_j - sum_l p_l ds_l)),
// plus the roundings of the P V sum (2n: also covers online-softmax
// rescaling) and of the common denominator (n + 2).
static void output_row(const xf_attention_args *a, const double *v, const double *vvar,
                       const row_scratch *r, double worst, int visible, size_t vbase,
                       double *out, double *outvar, double *bound)
{
    const int n = a->seq_k;
    for (int d = 0; d < a->dk; d++) {
        double acc = 0.0, abs_pv = 0.0, err = 0.0, var = 0.0, pv2 = 0.0;
        for (int j = 0; j < n; j++)
            if (r->p[j] != 0.0) {
                double vj = v[vbase + (size_t)j * a->ldv + d];
                acc += r->p[j] * vj;
                abs_pv += r->p[j] * fabs(vj);
                if (bound) err += r->p[j] * (r->eps[j] + xf_weight_err(worst, visible)) * fabs(vj);
            }
        out[d] = acc;
        if (bound) bound[d] = xf_attn_out_bound(err, visible, n, abs_pv, acc, a->p_bf16);
        if (!outvar) continue;
        for (int j = 0; j < n; j++) {
            if (r->p[j] == 0.0) continue;
            size_t vi = vbase + (size_t)j * a->ldv + d;
            double dv = v[vi] - acc;
            // eps_j / u sums the magnitudes of the roundings of the exp argument.
            double e_var = xf_exp_arg_var(r->eps[j]);
            var += r->p[j] * r->p[j] * (dv * dv * (r->s_var[j] + e_var) + vvar[vi]);
            if (a->p_bf16) pv2 += r->p[j] * r->p[j] * v[vi] * v[vi];
        }
        outvar[d] = xf_attn_out_var(var, visible, n, abs_pv, acc, pv2);
    }
}

// q, k, v, out as described in attention.h, in fp64.
void xf_ref_attention_plain_d(const xf_attention_args *a, const double *q, const double *k, const double *v,
                              const double *qvar, const double *kvar, const double *vvar, double math_ulp,
                              double *out, double *outvar, double *bound)
{
    const int n = a->seq_k, dk = a->dk;
    const double scale = 1.0 / sqrt((double)dk);
    row_scratch r = scratch_new(n);
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * n : NULL;
        for (int h = 0; h < a->heads; h++)
            for (int i = 0; i < a->seq_q; i++) {
                size_t qoff = ((size_t)b * a->seq_q + i) * a->ldq + (size_t)h * dk;
                size_t ooff = ((size_t)b * a->seq_q + i) * a->ldo + (size_t)h * dk;
                for (int j = 0; j < n; j++) {
                    size_t koff = (b * xf_attention_kv_rows(a) + j) * a->ldk + (size_t)h * dk;
                    double dot = 0.0, abs_dot = 0.0, var = 0.0;
                    for (int d = 0; d < dk; d++) {
                        dot += q[qoff + d] * k[koff + d];
                        abs_dot += fabs(q[qoff + d] * k[koff + d]);
                        if (outvar)
                            var += k[koff + d] * k[koff + d] * qvar[qoff + d] +
                                   q[qoff + d] * q[qoff + d] * kvar[koff + d];
                    }
                    r.t[j] = scale * dot;
                    r.t_err[j] = xf_score_err(dk, scale, abs_dot);
                    // dk products and sums, the scale (itself rounded) and
                    // its product: dk + 3 roundings of at most scale*abs_dot.
                    if (outvar) r.s_var[j] = xf_score_var(dk, scale, var, abs_dot);
                }
                int visible = xf_ref_softmax_row(n, r.t, pad, a->causal, i, r.p);
                // The bound counts the score errors in eps; the error model
                // carries them in s_var instead.
                double worst = 0.0;
                if (bound || outvar)
                    worst = xf_softmax_arg_error(n, r.t, bound ? r.t_err : NULL, pad, a->causal,
                                                 i, math_ulp, r.eps);
                size_t vbase = b * xf_attention_kv_rows(a) * a->ldv + (size_t)h * dk;
                output_row(a, v, vvar, &r, worst, visible, vbase, out + ooff,
                           outvar ? outvar + ooff : NULL, bound ? bound + ooff : NULL);
            }
    }
    scratch_free(&r);
}

void xf_ref_attention_d(const xf_attention_args *a, const double *q, const double *k, const double *v,
                        const double *qvar, const double *kvar, const double *vvar, double math_ulp, double *out,
                        double *outvar, double *bound)
{
    if (xf_ref_plain()) xf_ref_attention_plain_d(a, q, k, v, qvar, kvar, vvar, math_ulp, out, outvar, bound);
    else xf_ref_attention_fast_d(a, q, k, v, qvar, kvar, vvar, math_ulp, out, outvar, bound);
}

// Widens rows of width floats at stride ld, keeping the ld layout; the
// last row ends at its width, as src may be a column slice of a buffer.
static double *gather(const float *src, int rows, int ld, int width)
{
    return xf_widen(src, ((size_t)rows - 1) * ld + width);
}

void xf_ref_attention(const xf_attention_args *a, double math_ulp, double *out_ref, double *bound)
{
    const int width = a->heads * a->dk;
    double *q = gather(a->q, a->batch * a->seq_q, a->ldq, width);
    const int kv_rows = (int)xf_attention_kv_rows(a);
    double *k = gather(a->k, a->batch * kv_rows, a->ldk, width);
    double *v = gather(a->v, a->batch * kv_rows, a->ldv, width);
    xf_ref_attention_d(a, q, k, v, NULL, NULL, NULL, math_ulp, out_ref, NULL, bound);
    // bf16: computed in fp32 from the bf16 inputs (P never stored in bf16),
    // the output rounded once
    if (a->dtype == XF_BF16 && bound) xf_bound_bf16_output(bound, out_ref, (size_t)a->batch * a->seq_q * width);
    free(q);
    free(k);
    free(v);
}
