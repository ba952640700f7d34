// fp64 reference of the compound stages, written to be read against the
// paper (section 3) and PyTorch's TransformerEncoderLayer /
// TransformerDecoderLayer forward with norm_first=False.
#include <stdlib.h>
#include <string.h>

#include "add_layernorm.h"
#include "attention.h"
#include "decode.h"
#include "errmodel.h"
#include "layers.h"
#include "linear.h"

// dt: the dtype a composition stores each primitive's output in; in bf16
// every such output adds its rounding to the model (xf_var_stored).

// An fp64 activation and its error-model variance, element by element.
typedef struct {
    double *val, *var;
} act;

static act act_new(size_t count)
{
    act a = {calloc(count, sizeof(double)), calloc(count, sizeof(double))};
    return a;
}

static void act_free(act *a)
{
    free(a->val);
    free(a->var);
}

// y = x W^T + b
static act linear(int m, int n, int k, act x, const float *w, const float *b, int relu, xf_dtype dt)
{
    act y = act_new((size_t)m * n);
    xf_ref_linear_d(m, n, k, x.val, x.var, w, b, relu, y.val, y.var, NULL);
    xf_var_stored(dt, y.val, y.var, (size_t)m * n);
    return y;
}

// Multi-head attention: Q from q_in (batch, seq_q rows), K and V from kv_in
// (batch, seq_k rows), then the output projection.
static act mha(int batch, int seq_q, int seq_k, int heads, int dk, act q_in, act kv_in,
               const xf_mha_weights *w, const uint8_t *key_pad, int causal, double math_ulp, xf_dtype dt)
{
    const int d = heads * dk;
    act q = linear(batch * seq_q, d, d, q_in, w->in_proj_w, w->in_proj_b, 0, dt);
    act kv = linear(batch * seq_k, 2 * d, d, kv_in, w->in_proj_w + (size_t)d * d,
                    w->in_proj_b + d, 0, dt);
    act ctx = act_new((size_t)batch * seq_q * d);
    // bf16: the model allows for P rounded to bf16 whichever attention the
    // composition calls (avx512bf16's does it, avx512bf16w's does not): a
    // variance of u_bf16^2/3 sum_j p_j^2 v_j^2, which shrinks as the
    // weights spread over more keys, and one model for every bf16
    // composition, per-call choices included.
    xf_attention_args shape = {
        .batch = batch, .heads = heads, .dk = dk, .seq_q = seq_q, .seq_k = seq_k,
        .ldq = d, .ldk = 2 * d, .ldv = 2 * d, .key_pad = key_pad, .causal = causal, .ldo = d,
        .p_bf16 = dt == XF_BF16,
    };
    xf_ref_attention_d(&shape, q.val, kv.val, kv.val + d, q.var, kv.var, kv.var + d, math_ulp,
                       ctx.val, ctx.var, NULL);
    xf_var_stored(dt, ctx.val, ctx.var, (size_t)batch * seq_q * d);
    act out = linear(batch * seq_q, d, d, ctx, w->out_proj_w, w->out_proj_b, 0, dt);
    act_free(&q);
    act_free(&kv);
    act_free(&ctx);
    return out;
}

// x <- LayerNorm(x + r); r is consumed.
static void add_norm(int rows, int d, act *x, act *r, const xf_norm_weights *n, double math_ulp, xf_dtype dt)
{
    act y = act_new((size_t)rows * d);
    xf_ref_add_layernorm_d(rows, d, x->val, r->val, x->var, r->var, n->gamma, n->beta,
                           math_ulp, y.val, y.var, NULL);
    xf_var_stored(dt, y.val, y.var, (size_t)rows * d);
    act_free(x);
    act_free(r);
    *x = y;
}

static act ffn(int m, int d, int d_ff, act x, const xf_ffn_weights *w, xf_dtype dt)
{
    act h = linear(m, d_ff, d, x, w->w1, w->b1, 1, dt);
    act y = linear(m, d, d_ff, h, w->w2, w->b2, 0, dt);
    act_free(&h);
    return y;
}

// Rows at padded positions are zero with zero variance: the contract
// (docs/design.md, Masking), so a variant must not compute them.
static void zero_padded(act *a, const uint8_t *pad, size_t rows, int d)
{
    for (size_t r = 0; pad && r < rows; r++)
        if (pad[r]) {
            memset(a->val + r * d, 0, (size_t)d * sizeof(double));
            memset(a->var + r * d, 0, (size_t)d * sizeof(double));
        }
}

static act act_copy(const double *val, const double *var, size_t count)
{
    act a = act_new(count);
    memcpy(a.val, val, count * sizeof(double));
    if (var) memcpy(a.var, var, count * sizeof(double));
    return a;
}

static void act_store(act *a, double *val, double *var, size_t count)
{
    memcpy(val, a->val, count * sizeof(double));
    if (var) memcpy(var, a->var, count * sizeof(double));
    act_free(a);
}

void xf_ref_ffn_d(const xf_ffn_args *a, const double *x, const double *xvar, double *y,
                  double *yvar)
{
    size_t count = (size_t)a->m * a->d_model;
    act in = act_copy(x, xvar, count);
    act out = ffn(a->m, a->d_model, a->d_ff, in, a->w, a->dtype);
    act_free(&in);
    act_store(&out, y, yvar, count);
}

void xf_ref_encoder_layer_d(const xf_encoder_layer_args *a, const double *x,
                            const double *xvar, double math_ulp, double *y, double *yvar)
{
    const int d = a->heads * a->dk, rows = a->batch * a->seq;
    const size_t count = (size_t)rows * d;
    act h = act_copy(x, xvar, count);
    act sa = mha(a->batch, a->seq, a->seq, a->heads, a->dk, h, h, &a->w->self_attn, a->src_pad,
                 0, math_ulp, a->dtype);
    add_norm(rows, d, &h, &sa, &a->w->norm1, math_ulp, a->dtype);
    act ff = ffn(rows, d, a->d_ff, h, &a->w->ffn, a->dtype);
    add_norm(rows, d, &h, &ff, &a->w->norm2, math_ulp, a->dtype);
    zero_padded(&h, a->src_pad, (size_t)rows, d);
    act_store(&h, y, yvar, count);
}

void xf_ref_decoder_layer_d(const xf_decoder_layer_args *a, const double *x,
                            const double *xvar, const double *mem, const double *memvar,
                            double math_ulp, double *y, double *yvar)
{
    const int d = a->heads * a->dk, rows = a->batch * a->seq_t;
    const size_t count = (size_t)rows * d;
    act h = act_copy(x, xvar, count);
    act m = act_copy(mem, memvar, (size_t)a->batch * a->seq_s * d);
    act sa = mha(a->batch, a->seq_t, a->seq_t, a->heads, a->dk, h, h, &a->w->self_attn,
                 a->tgt_pad, 1, math_ulp, a->dtype);
    add_norm(rows, d, &h, &sa, &a->w->norm1, math_ulp, a->dtype);
    act ca = mha(a->batch, a->seq_t, a->seq_s, a->heads, a->dk, h, m, &a->w->cross_attn,
                 a->src_pad, 0, math_ulp, a->dtype);
    add_norm(rows, d, &h, &ca, &a->w->norm2, math_ulp, a->dtype);
    act ff = ffn(rows, d, a->d_ff, h, &a->w->ffn, a->dtype);
    add_norm(rows, d, &h, &ff, &a->w->norm3, math_ulp, a->dtype);
    zero_padded(&h, a->tgt_pad, (size_t)rows, d);
    act_free(&m);
    act_store(&h, y, yvar, count);
}

// A decode step (kernels/decode.h): the decoder layer above for the one
// row at position pos, the cached rows before it read as given.

// One query row per sequence (q, ld = ldq) over kv (batch,seq_k,2d), then
// the output projection.
static act attend(const xf_decode_layer_args *a, act q, int ldq, act kv, int seq_k, const uint8_t *key_pad,
                  const xf_mha_weights *w, double math_ulp)
{
    const int d = a->heads * a->dk;
    act ctx = act_new((size_t)a->batch * d);
    // One query row: every bf16 attention keeps P in fp32 there (the
    // vdpbf16ps one defers decode steps to avx512bf16w's row kernel).
    xf_attention_args shape = {.batch = a->batch, .heads = a->heads, .dk = a->dk, .seq_q = 1, .seq_k = seq_k,
                               .ldq = ldq, .ldk = 2 * d, .ldv = 2 * d, .key_pad = key_pad, .ldo = d};
    xf_ref_attention_d(&shape, q.val, kv.val, kv.val + d, q.var, kv.var, kv.var + d, math_ulp, ctx.val,
                       ctx.var, NULL);
    xf_var_stored(a->dtype, ctx.val, ctx.var, (size_t)a->batch * d);
    act out = linear(a->batch, d, d, ctx, w->out_proj_w, w->out_proj_b, 0, a->dtype);
    act_free(&ctx);
    return out;
}

void xf_ref_decode_layer_d(const xf_decode_layer_args *a, const double *x, const double *xvar,
                           double math_ulp, double *y, double *yvar)
{
    const int d = a->heads * a->dk, B = a->batch, rows = a->pos + 1;
    act h = act_copy(x, xvar, (size_t)B * d);

    // Self-attention: the cached rows as given, the new row from x.
    act qkv = linear(B, 3 * d, d, h, a->w->self_attn.in_proj_w, a->w->self_attn.in_proj_b, 0, a->dtype);
    act kv = act_new((size_t)B * rows * 2 * d);
    for (int b = 0; b < B; b++) {
        for (size_t i = 0; i < (size_t)a->pos * 2 * d; i++)
            kv.val[(size_t)b * rows * 2 * d + i] = a->self_kv[(size_t)b * a->capacity * 2 * d + i];
        const size_t new_row = ((size_t)b * rows + a->pos) * 2 * d;
        memcpy(kv.val + new_row, qkv.val + (size_t)b * 3 * d + d, 2 * (size_t)d * sizeof(double));
        memcpy(kv.var + new_row, qkv.var + (size_t)b * 3 * d + d, 2 * (size_t)d * sizeof(double));
    }
    act sa = attend(a, qkv, 3 * d, kv, rows, NULL, &a->w->self_attn, math_ulp);
    act_free(&qkv);
    act_free(&kv);
    add_norm(B, d, &h, &sa, &a->w->norm1, math_ulp, a->dtype);

    // Cross-attention onto the memory's K|V, given.
    const xf_mha_weights *cw = &a->w->cross_attn;
    act q = linear(B, d, d, h, cw->in_proj_w, cw->in_proj_b, 0, a->dtype);
    act mkv = act_new((size_t)B * a->seq_s * 2 * d);
    for (size_t i = 0; i < (size_t)B * a->seq_s * 2 * d; i++) mkv.val[i] = a->cross_kv[i];
    act ca = attend(a, q, d, mkv, a->seq_s, a->src_pad, cw, math_ulp);
    act_free(&q);
    act_free(&mkv);
    add_norm(B, d, &h, &ca, &a->w->norm2, math_ulp, a->dtype);

    act ff = ffn(B, d, a->d_ff, h, &a->w->ffn, a->dtype);
    add_norm(B, d, &h, &ff, &a->w->norm3, math_ulp, a->dtype);
    act_store(&h, y, yvar, (size_t)B * d);
}
