// attention: for every batch b and head h,
//   out_h = softmax(Q_h K_h^T / sqrt(dk) + mask) V_h
// Heads are views: head h of a row is the dk columns starting at h*dk, so
// Q, K, V may be column slices of one packed QKV buffer (ld = 3*d_model).
// Q has seq_q rows per batch, K and V seq_k rows (cross-attention when Q
// comes from another sequence). The mask is xf_key_visible(): key padding
// and, optionally, causal (top-left aligned). A query row with no visible
// key outputs zeros.
#ifndef XF_ATTENTION_H
#define XF_ATTENTION_H

#include "xf_common.h"

typedef struct {
    int batch, heads, dk, seq_q, seq_k;
    const float *q; int ldq; // q is (batch,seq_q,heads*dk) with row stride ldq
    const float *k; int ldk; // k is (batch,seq_k,heads*dk) with row stride ldk
    const float *v; int ldv; // v is (batch,seq_k,heads*dk) with row stride ldv
    int kv_rows;             // rows per batch of k and v, >= seq_k (a KV cache's capacity); 0: seq_k
    const uint8_t *key_pad;  // key_pad is (batch,seq_k), 1 = padding; or NULL
    int causal;
    float *out; int ldo;     // out is (batch,seq_q,heads*dk) with row stride ldo
    // dtype XF_BF16: q, k, v also as bf16, same layout and strides (q, k, v
    // above then hold the same values widened, which the reference reads),
    // and the output is out16 (out unused).
    xf_dtype dtype;
    const xf_bf16 *q16, *k16, *v16;
    xf_bf16 *out16;
    // For the reference only, never read by a kernel: 1 when the variant
    // checked rounds P to bf16 (its xf_variant's p_bf16), which widens the
    // bound and the error model by that rounding (attention_ref.c).
    int p_bf16;
} xf_attention_args;

// Rows between one batch's keys (and values) and the next's.
static inline size_t xf_attention_kv_rows(const xf_attention_args *a)
{
    return (size_t)(a->kv_rows ? a->kv_rows : a->seq_k);
}
// The views of batch b, head h: the first row of each, with the row strides
// of the args.
typedef struct {
    const float *q, *k, *v;
    float *out;
} xf_attention_head;

static inline xf_attention_head xf_attention_head_at(const xf_attention_args *a, int b, int h)
{
    const size_t col = (size_t)h * a->dk;
    xf_attention_head v = {a->q + (size_t)b * a->seq_q * a->ldq + col,
                           a->k + b * xf_attention_kv_rows(a) * a->ldk + col,
                           a->v + b * xf_attention_kv_rows(a) * a->ldv + col,
                           a->out + (size_t)b * a->seq_q * a->ldo + col};
    return v;
}

// Dense count, as benchdnn and ggml count SDPA: 2 dk for each score and 2 dk
// for each P V term, masked ones included, softmax not counted.
static inline double xf_attention_flops(const xf_attention_args *a)
{
    return 4.0 * a->batch * a->heads * (double)a->seq_q * a->seq_k * a->dk;
}

// Useful count: 2 dk for the score and 2 dk for the P V term of each
// visible (query, key) pair only (kernels/counts.c): what a kernel that
// skipped every masked pair would have to do.
double xf_attention_useful_flops(const xf_attention_args *a);
// Visible (query, key) pairs over the batch, per head.
double xf_visible_pairs(const uint8_t *key_pad, int batch, int seq_q, int seq_k, int causal);

// Q, K, V read once, out written once (the seq_q x seq_k scores are not
// compulsory traffic).
static inline double xf_attention_bytes(const xf_attention_args *a)
{
    double d = (double)a->heads * a->dk;
    return (double)xf_dtype_size(a->dtype) * a->batch * d * (2.0 * a->seq_q + 2.0 * a->seq_k) +
           (a->key_pad ? (double)a->batch * a->seq_k : 0.0);
}

// fp64 reference on fp64 q/k/v laid out as in *shape (its float pointers are
// not used). The *var arrays carry the error model (errmodel.h), laid out
// like their values, all NULL to skip it; bound, if not NULL, receives the
// componentwise bound (attention_ref.c). math_ulp: the variant's exp error.
void xf_ref_attention_d(const xf_attention_args *shape, const double *q, const double *k,
                        const double *v, const double *qvar, const double *kvar,
                        const double *vvar, double math_ulp, double *out, double *outvar,
                        double *bound);
// The same by the plain loops of attention_ref.c (the specification), and
// by attention_fast.c (GEMMs of gemm_d.h, threaded); xf_ref_attention_d
// calls one of them (xf_ref_plain()).
void xf_ref_attention_plain_d(const xf_attention_args *shape, const double *q, const double *k, const double *v,
                              const double *qvar, const double *kvar, const double *vvar, double math_ulp,
                              double *out, double *outvar, double *bound);
void xf_ref_attention_fast_d(const xf_attention_args *shape, const double *q, const double *k, const double *v,
                             const double *qvar, const double *kvar, const double *vvar, double math_ulp, double *out,
                             double *outvar, double *bound);

// The stage as an fp32 variant sees it: reference and bound.
void xf_ref_attention(const xf_attention_args *a, double math_ulp, double *out_ref, double *bound);

#endif
