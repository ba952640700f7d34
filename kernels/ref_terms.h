// The per-element terms of the linear and attention references' bounds and
// error model (derived in linear_ref.c and attention_ref.c), written once:
// the plain loops and the GEMM versions (linear_fast.c, attention_fast.c)
// form the same sums in different orders and finish them with these.
#ifndef XF_REF_TERMS_H
#define XF_REF_TERMS_H

#include <math.h>

#include "errmodel.h"

// linear, output y = acc with magnitude sum |x w| + |b| = abs_acc over k inputs
static inline double xf_linear_bound(int k, double abs_acc, double acc)
{
    return xf_gamma(k + 1) * abs_acc + XF_U * fabs(acc) + (k + 1) * 0x1p-150;
}

static inline double xf_linear_round_var(int k, double abs_acc) { return XF_VAR_U2 * (k + 2) * abs_acc * abs_acc; }

// attention score = scale * dot over dk, magnitude scale * abs_dot:
// its bound, and the model's variance from the propagated var_dot
static inline double xf_score_err(int dk, double scale, double abs_dot)
{
    return (xf_gamma(dk) + 2.0 * XF_U) * scale * abs_dot;
}

static inline double xf_score_var(int dk, double scale, double var_dot, double abs_dot)
{
    return scale * scale * var_dot + XF_VAR_U2 * (dk + 3) * scale * scale * abs_dot * abs_dot;
}

// The model's variance of a softmax exponent off by eps (eps / u roundings).
static inline double xf_exp_arg_var(double eps) { return XF_VAR_U2 * (eps / XF_U) * (eps / XF_U); }

// What every visible key's weight p_j carries besides its own eps_j: the
// row's worst eps, its n-term sum and the division.
static inline double xf_weight_err(double worst, int visible) { return worst + xf_gamma(visible) + 2.0 * XF_U; }

// An attention output out = sum p v (abs_pv = sum p |v|) over n keys of which
// visible are: its bound from err = sum p_j (eps_j + xf_weight_err) |v_jd|,
// its variance from the propagated var; a row with no visible key is 0.
// p_bf16: the kernel rounded every p_j to bf16 before P V (shape->p_bf16).
// That rounding keeps p_j's fp32 error dp_j within (1 + u_bf16) |dp_j| and
// adds u_bf16 p_j, so err grows to (1 + u_bf16) err + u_bf16 abs_pv, and
// the P V sum runs over weights of at most (1 + u_bf16) (p_j + |dp_j|); the
// model adds the variance u_bf16^2/3 sum_j p_j^2 v_jd^2 (pv2) of those
// independent roundings.
static inline double xf_attn_out_bound(double err, int visible, int n, double abs_pv, double out, int p_bf16)
{
    if (!visible) return 0.0;
    double sum_abs = abs_pv;
    if (p_bf16) {
        sum_abs = (1.0 + XF_U_BF16) * (abs_pv + err);
        err = (1.0 + XF_U_BF16) * err + XF_U_BF16 * abs_pv;
    }
    return err + xf_gamma(2.0 * visible) * sum_abs + XF_U * fabs(out) + (n + 1) * 0x1p-126;
}

static inline double xf_attn_out_var(double var, int visible, int n, double abs_pv, double out, double pv2)
{
    return visible ? var + XF_VAR_U2 * ((2.0 * n + 2.0) * abs_pv * abs_pv + (n + 2.0) * out * out) +
                         XF_VAR_BF16 * pv2
                   : 0.0;
}

#endif
