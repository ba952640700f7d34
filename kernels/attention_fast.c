// attention_ref.c's sums as GEMMs (gemm_d.h), a block of query rows of one
// (batch, head) at a time; the per-row softmax and its error terms are the
// plain code's own functions, threaded over rows. Every sum the plain
// loops form element by element is formed here as a matrix product:
//   scores Q K^T, their magnitudes |Q| |K|^T, their propagated variance
//   qvar (K.K)^T + (Q.Q) kvar^T;
//   the output P V, its magnitude P |V|, the bound's P.eps |V|, and the
//   variance sum_j w_j (v_jd - out_d)^2 + p_j^2 vvar_jd as
//   W (V.V) - 2 out_d W V + out_d^2 sum_j w_j + P.P vvar
//   with w_j = p_j^2 (s_var_j + e_var_j) (expanded: three products
//   instead of one pass per output element); for a kernel that rounds P
//   to bf16, also P.P (V.V).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "errmodel.h"
#include "gemm_d.h"
#include "ref_terms.h"
#include "softmax.h"

typedef struct {
    double *t, *a, *sv, *sv2;    // rows x n: scores, magnitudes, variance (two halves)
    double *p, *pe, *w, *p2;     // rows x n: P, P.eps, W, P.P
    double *o, *abs, *err, *wv2, *wv, *pvv, *pv2; // rows x dk
    double *worst, *wsum;        // rows
    int *visible;
} block;

static double *map(const double *x, size_t rows, size_t ld, int dk, double (*f)(double))
{
    double *y = malloc(rows * dk * sizeof *y);
    for (size_t r = 0; r < rows; r++)
        for (int d = 0; d < dk; d++) y[r * dk + d] = f(x[r * ld + d]);
    return y;
}

static double square(double x) { return x * x; }

// One row of scores through the softmax and its error terms (the plain
// code's arithmetic, attention_ref.c), over its first n keys (the rest
// are masked for every row of the block: causal).
static void row(const xf_attention_args *a, const block *bl, int r, int i, int n, const uint8_t *pad, double math_ulp,
                int want_bound, int want_var, double *t, double *t_err, double *s_var, double *eps)
{
    const int dk = a->dk;
    const double scale = 1.0 / sqrt((double)dk);
    const size_t o = (size_t)r * a->seq_k;
    for (int j = 0; j < n; j++) {
        t[j] = scale * bl->t[o + j];
        t_err[j] = xf_score_err(dk, scale, bl->a[o + j]);
        if (want_var) s_var[j] = xf_score_var(dk, scale, bl->sv[o + j] + bl->sv2[o + j], bl->a[o + j]);
    }
    double *p = bl->p + o;
    bl->visible[r] = xf_ref_softmax_row(n, t, pad, a->causal, i, p);
    bl->worst[r] = 0.0;
    if (want_bound || want_var)
        bl->worst[r] = xf_softmax_arg_error(n, t, want_bound ? t_err : NULL, pad, a->causal, i, math_ulp, eps);
    double wsum = 0.0;
    for (int j = 0; j < n; j++) {
        if (want_bound) bl->pe[o + j] = p[j] * eps[j];
        if (want_var) {
            const double e_var = xf_exp_arg_var(eps[j]);
            bl->w[o + j] = p[j] * p[j] * (s_var[j] + e_var);
            bl->p2[o + j] = p[j] * p[j];
            wsum += bl->w[o + j];
        }
    }
    bl->wsum[r] = wsum;
}

// Every array of the block cut from one allocation, so that one free
// releases them all (a list of frees once missed an array added later).
static block block_new(int rows, int n, int dk)
{
    block bl;
    const size_t big = (size_t)rows * (n > 0 ? n : 1), small = (size_t)rows * dk;
    double **bigs[] = {&bl.t, &bl.a, &bl.sv, &bl.sv2, &bl.p, &bl.pe, &bl.w, &bl.p2};
    double **smalls[] = {&bl.o, &bl.abs, &bl.err, &bl.wv2, &bl.wv, &bl.pvv, &bl.pv2, &bl.worst, &bl.wsum};
    const size_t nbig = sizeof bigs / sizeof *bigs, nsmall = sizeof smalls / sizeof *smalls;
    // worst and wsum (one double a row) are cut as rows x dk: a little
    // spare, one layout.
    double *all = calloc(nbig * big + nsmall * small, sizeof(double));
    for (size_t i = 0; i < nbig; i++) *bigs[i] = all + i * big;
    for (size_t i = 0; i < nsmall; i++) *smalls[i] = all + nbig * big + i * small;
    bl.visible = calloc((size_t)rows, sizeof(int));
    return bl;
}

static void block_free(block *bl)
{
    free(bl->t); // the start of the one allocation (block_new)
    free(bl->visible);
}

// Query rows per block: the rows x n matrices within about 64 MiB.
static int block_rows(int n)
{
    const int rows = n > 0 ? (1 << 20) / n : 256;
    return rows > 256 ? 256 : rows < 8 ? 8 : rows;
}

// A block's m output rows (from query row qrow0 of head h) from its P V
// products: the values, and the bound or the variance where asked for.
static void write_block(const xf_attention_args *a, const block *bl, size_t qrow0, int h, int m, double *out,
                        double *outvar, double *bound)
{
    const int n = a->seq_k, dk = a->dk;
    for (int r = 0; r < m; r++) {
        const size_t ooff = (qrow0 + r) * a->ldo + (size_t)h * dk;
        const int vis = bl->visible[r];
        for (int d = 0; d < dk; d++) {
            const size_t e = (size_t)r * dk + d;
            const double acc = bl->o[e], abs_pv = bl->abs[e];
            out[ooff + d] = acc;
            if (bound)
                bound[ooff + d] =
                    xf_attn_out_bound(bl->err[e] + xf_weight_err(bl->worst[r], vis) * abs_pv, vis, n, abs_pv, acc,
                                      a->p_bf16);
            if (outvar) {
                const double var = bl->wv2[e] - 2.0 * acc * bl->wv[e] + acc * acc * bl->wsum[r] + bl->pvv[e];
                outvar[ooff + d] = xf_attn_out_var(var, vis, n, abs_pv, acc, a->p_bf16 ? bl->pv2[e] : 0.0);
            }
        }
    }
}

// One (batch, head): its query rows a block at a time.
static void head(const xf_attention_args *a, int b, int h, const double *q, const double *k, const double *v,
                 const double *qvar, const double *kvar, const double *vvar, double math_ulp, double *out,
                 double *outvar, double *bound, block *blp)
{
    const int n = a->seq_k, dk = a->dk, want_var = outvar != NULL, want_bound = bound != NULL;
    const int rows = block_rows(n);
    const size_t kv_rows = xf_attention_kv_rows(a);
    const block bl = *blp;
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * n : NULL;
    const double *kh = k + b * kv_rows * a->ldk + (size_t)h * dk;
    const double *vh = v + b * kv_rows * a->ldv + (size_t)h * dk;
    double *ka = map(kh, (size_t)n, (size_t)a->ldk, dk, fabs), *va = map(vh, (size_t)n, (size_t)a->ldv, dk, fabs);
    double *k2 = want_var ? map(kh, (size_t)n, (size_t)a->ldk, dk, square) : NULL;
    double *v2 = want_var ? map(vh, (size_t)n, (size_t)a->ldv, dk, square) : NULL;
    const double *kvh = want_var ? kvar + b * kv_rows * a->ldk + (size_t)h * dk : NULL;
    const double *vvh = want_var ? vvar + b * kv_rows * a->ldv + (size_t)h * dk : NULL;
    for (int i0 = 0; i0 < a->seq_q; i0 += rows) {
        const int m = a->seq_q - i0 < rows ? a->seq_q - i0 : rows;
        // Causal: the block's rows see keys j <= i < i0 + m only. The
        // matrices keep their row stride n.
        const int ne = a->causal && i0 + m < n ? i0 + m : n;
        const size_t qrow0 = (size_t)b * a->seq_q + i0;
        const double *qh = q + qrow0 * a->ldq + (size_t)h * dk;
        double *qa = map(qh, (size_t)m, (size_t)a->ldq, dk, fabs);
        // K read as (dk, n): row stride 1, column stride ldk.
        xf_gemm_d(m, ne, dk, qh, (size_t)a->ldq, 1, kh, 1, (size_t)a->ldk, bl.t, (size_t)n);
        xf_gemm_d(m, ne, dk, qa, (size_t)dk, 1, ka, 1, (size_t)dk, bl.a, (size_t)n);
        if (want_var) {
            double *q2 = map(qh, (size_t)m, (size_t)a->ldq, dk, square);
            xf_gemm_d(m, ne, dk, qvar + qrow0 * a->ldq + (size_t)h * dk, (size_t)a->ldq, 1, k2, 1, (size_t)dk, bl.sv,
                      (size_t)n);
            xf_gemm_d(m, ne, dk, q2, (size_t)dk, 1, kvh, 1, (size_t)a->ldk, bl.sv2, (size_t)n);
            free(q2);
        }
        free(qa);
        // Threaded here only when the heads are not (xf_ref_attention_fast_d).
#pragma omp parallel num_threads(xf_ref_threads()) if (!xf_ref_in_parallel() && m * (size_t)ne > 16384)
        {
            double *t = malloc(4 * (size_t)(ne > 0 ? ne : 1) * sizeof *t);
#pragma omp for schedule(dynamic, 4)
            for (int r = 0; r < m; r++)
                row(a, &bl, r, i0 + r, ne, pad, math_ulp, want_bound, want_var, t, t + ne, t + 2 * ne, t + 3 * ne);
            free(t);
        }
        // V read as (ne, dk): row stride ldv.
        xf_gemm_d(m, dk, ne, bl.p, (size_t)n, 1, vh, (size_t)a->ldv, 1, bl.o, (size_t)dk);
        xf_gemm_d(m, dk, ne, bl.p, (size_t)n, 1, va, (size_t)dk, 1, bl.abs, (size_t)dk);
        if (want_bound) xf_gemm_d(m, dk, ne, bl.pe, (size_t)n, 1, va, (size_t)dk, 1, bl.err, (size_t)dk);
        if (want_var) {
            xf_gemm_d(m, dk, ne, bl.w, (size_t)n, 1, v2, (size_t)dk, 1, bl.wv2, (size_t)dk);
            xf_gemm_d(m, dk, ne, bl.w, (size_t)n, 1, vh, (size_t)a->ldv, 1, bl.wv, (size_t)dk);
            xf_gemm_d(m, dk, ne, bl.p2, (size_t)n, 1, vvh, (size_t)a->ldv, 1, bl.pvv, (size_t)dk);
            if (a->p_bf16) xf_gemm_d(m, dk, ne, bl.p2, (size_t)n, 1, v2, (size_t)dk, 1, bl.pv2, (size_t)dk);
        }
        write_block(a, &bl, qrow0, h, m, out, outvar, bound);
    }
    free(ka), free(va), free(k2), free(v2);
}

// q, k, v, out as described in attention.h, in fp64. Threaded over the
// (batch, head) pairs when there are enough to share (each thread's GEMMs
// then run on it alone), else within each pair.
void xf_ref_attention_fast_d(const xf_attention_args *a, const double *q, const double *k, const double *v,
                             const double *qvar, const double *kvar, const double *vvar, double math_ulp, double *out,
                             double *outvar, double *bound)
{
    const int pairs = a->batch * a->heads, threads = xf_ref_threads();
    const int across = pairs >= 2 * threads && (size_t)a->seq_q * a->seq_k * a->dk > 1 << 16;
#pragma omp parallel num_threads(threads) if (across)
    {
        block bl = block_new(block_rows(a->seq_k), a->seq_k, a->dk);
#pragma omp for schedule(dynamic)
        for (int pair = 0; pair < pairs; pair++)
            head(a, pair / a->heads, pair % a->heads, q, k, v, qvar, kvar, vvar, math_ulp, out, outvar, bound, &bl);
        block_free(&bl);
    }
}
