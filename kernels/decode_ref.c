// fp64 references of decoding (kernels/decode.h), from the same pieces as
// the full pass (linear, attention, add_layernorm, ffn references with the
// error model of errmodel.h).
#include <stdlib.h>
#include <string.h>

#include "add_layernorm.h"
#include "attention.h"
#include "decode.h"
#include "linear.h"
#include "lm_head.h"

// A buffer of count fp64 values and one of their variances.
typedef struct {
    double *val, *var;
} act;

static act act_new(size_t count)
{
    act a = {calloc(count ? count : 1, sizeof(double)), calloc(count ? count : 1, sizeof(double))};
    return a;
}

static void act_free(act *a)
{
    free(a->val);
    free(a->var);
}

static act linear(int m, int n, int k, act x, const float *w, const float *b, int relu)
{
    act y = act_new((size_t)m * n);
    xf_ref_linear_d(m, n, k, x.val, x.var, w, b, relu, y.val, y.var, NULL);
    return y;
}

// x <- LayerNorm(x + r); r is consumed.
static void add_norm(int rows, int d, act *x, act *r, const xf_norm_weights *n, double math_ulp)
{
    act y = act_new((size_t)rows * d);
    xf_ref_add_layernorm_d(rows, d, x->val, r->val, x->var, r->var, n->gamma, n->beta, math_ulp, y.val,
                           y.var, NULL);
    act_free(x);
    act_free(r);
    *x = y;
}

// One query row per sequence (q, ld = ldq) over kv (batch,seq_k,2d), then
// the output projection.
static act attend(const xf_decode_layer_args *a, act q, int ldq, act kv, int seq_k, const uint8_t *key_pad,
                  const xf_mha_weights *w, double math_ulp)
{
    const int d = a->heads * a->dk;
    act ctx = act_new((size_t)a->batch * d);
    xf_attention_args shape = {.batch = a->batch, .heads = a->heads, .dk = a->dk, .seq_q = 1, .seq_k = seq_k,
                               .ldq = ldq, .ldk = 2 * d, .ldv = 2 * d, .key_pad = key_pad, .ldo = d};
    xf_ref_attention_d(&shape, q.val, kv.val, kv.val + d, q.var, kv.var, kv.var + d, math_ulp, ctx.val,
                       ctx.var, NULL);
    act out = linear(a->batch, d, d, ctx, w->out_proj_w, w->out_proj_b, 0);
    act_free(&ctx);
    return out;
}

void xf_ref_decode_layer_d(const xf_decode_layer_args *a, const double *x, const double *xvar,
                           double math_ulp, double *y, double *yvar)
{
    const int d = a->heads * a->dk, B = a->batch, rows = a->pos + 1;
    act h = act_new((size_t)B * d);
    memcpy(h.val, x, (size_t)B * d * sizeof(double));
    if (xvar) memcpy(h.var, xvar, (size_t)B * d * sizeof(double));

    // Self-attention: the cached rows as given, the new row from x.
    act qkv = linear(B, 3 * d, d, h, a->w->self_attn.in_proj_w, a->w->self_attn.in_proj_b, 0);
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
    add_norm(B, d, &h, &sa, &a->w->norm1, math_ulp);

    // Cross-attention onto the memory's K|V, given.
    const xf_mha_weights *cw = &a->w->cross_attn;
    act q = linear(B, d, d, h, cw->in_proj_w, cw->in_proj_b, 0);
    act mkv = act_new((size_t)B * a->seq_s * 2 * d);
    for (size_t i = 0; i < (size_t)B * a->seq_s * 2 * d; i++) mkv.val[i] = a->cross_kv[i];
    act ca = attend(a, q, d, mkv, a->seq_s, a->src_pad, cw, math_ulp);
    act_free(&q);
    act_free(&mkv);
    add_norm(B, d, &h, &ca, &a->w->norm2, math_ulp);

    act ff = act_new((size_t)B * d);
    xf_ffn_args fa = {.m = B, .d_model = d, .d_ff = a->d_ff, .w = &a->w->ffn};
    xf_ref_ffn_d(&fa, h.val, h.var, ff.val, ff.var);
    add_norm(B, d, &h, &ff, &a->w->norm3, math_ulp);
    memcpy(y, h.val, (size_t)B * d * sizeof(double));
    if (yvar) memcpy(yvar, h.var, (size_t)B * d * sizeof(double));
    act_free(&h);
}

// Teacher-forced generation computes what the full pass computes for the
// given target tokens (the decoder causal; trailing target padding hides
// no key from a real row); the logits are a bias-free linear of its output
// with the tied table.
void xf_ref_generate_d(const xf_generate_args *a, double math_ulp, double *memory, double *memvar,
                       double *y, double *yvar, double *logits, double *logitvar)
{
    const int d = a->heads * a->dk, rows = a->batch * a->steps;
    xf_forward_args f = {.batch = a->batch, .seq_s = a->seq_s, .seq_t = a->steps, .heads = a->heads,
                         .dk = a->dk, .d_ff = a->d_ff, .enc_layers = a->enc_layers,
                         .dec_layers = a->dec_layers, .vocab = a->vocab, .src_ids = a->src_ids,
                         .tgt_ids = a->tgt_ids, .src_table = a->src_table, .tgt_table = a->tgt_table,
                         .src_x = a->src_x, .tgt_x = a->tgt_x, .enc = a->enc, .dec = a->dec,
                         .enc_norm = a->enc_norm, .dec_norm = a->dec_norm, .src_pad = a->src_pad,
                         .tgt_pad = a->tgt_pad};
    xf_ref_forward_d(&f, math_ulp, memory, memvar, y, yvar);
    if (a->logits) xf_ref_linear_d(rows, a->vocab, d, y, yvar, a->tgt_table, NULL, 0, logits, logitvar, NULL);
}
