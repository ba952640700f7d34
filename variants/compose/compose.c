// Compound stages as sequences of primitive calls; the fp32 twin of
// kernels/layers_ref.c and kernels/forward_ref.c. Self-attention uses one
// packed QKV linear (n = 3 d_model), cross-attention a Q linear on the
// decoder stream and a packed KV linear on memory, as PyTorch does.
//
// Padded batches without padded work: a layer's linears, FFN and Add &
// Norms run on the real tokens only, gathered into compact rows
// (parts.h), and attention on their queries and keys only, one call per
// batch element of its own lengths (every compact key is visible, so no
// padding mask is passed). Outputs at padded rows are zeros, as the
// reference's are (the contract: docs/design.md, Masking). A batch
// without padding runs as one call per primitive, as before.
//
// Written once for both dtypes (act.h): activations are xf_act, every
// primitive call gets the views of the composition's dtype.
#include <string.h>

#include "parts.h"

// A batch whose every token is padding leaves no rows: no call (oneDNN's
// matmul, for one, divides by M).
void XF_PART(linear)(xf_exec *ex, int m, int n, int k, const xf_act *x, const float *w, const float *b, int relu,
                     xf_act *y)
{
    if (m == 0) return;
    xf_linear_args a = {.m = m, .n = n, .k = k, .XF_ACT(x) = x, .XF_ACT(w) = XF_WEIGHT(ex, w, (size_t)n * k),
                        .XF_ACT(b) = XF_WEIGHT(ex, b, (size_t)n), .relu = relu, .XF_ACT(y) = y,
                        .dtype = XF_ACT_DTYPE};
    xf_exec_call(ex, XF_LINEAR, &a, sizeof a);
}

void XF_PART(add_norm)(xf_exec *ex, int rows, int d, const xf_act *x, const xf_act *r, const xf_norm_weights *n,
                       xf_act *y)
{
    if (rows == 0) return;
    xf_add_layernorm_args a = {.rows = rows, .d = d, .XF_ACT(x) = x, .XF_ACT(r) = r,
                               .XF_ACT(gamma) = XF_WEIGHT(ex, n->gamma, (size_t)d),
                               .XF_ACT(beta) = XF_WEIGHT(ex, n->beta, (size_t)d), .XF_ACT(y) = y,
                               .dtype = XF_ACT_DTYPE};
    xf_exec_call(ex, XF_ADD_LAYERNORM, &a, sizeof a);
}

void XF_PART(ffn)(xf_exec *ex, int m, int d, int d_ff, const xf_act *x, const xf_ffn_weights *w, xf_act *hidden,
                  xf_act *y)
{
    if (!hidden) hidden = xf_act_buffer(ex, (size_t)m * d_ff);
    XF_PART(linear)(ex, m, d_ff, d, x, w->w1, w->b1, 1, hidden);
    XF_PART(linear)(ex, m, d, d_ff, hidden, w->w2, w->b2, 0, y);
}

void XF_PART(final_norm)(xf_exec *ex, int rows, int d, const xf_norm_weights *n, const xf_act *x, xf_act *y)
{
    const xf_act *zero = xf_act_buffer(ex, (size_t)rows * d); // zero bits: 0.0 in either dtype
    XF_PART(add_norm)(ex, rows, d, x, zero, n, y);
}

void XF_PART(rows_gather)(const xf_rows *r, int d, const xf_act *padded, xf_act *compact)
{
    for (int i = 0; i < r->n; i++)
        memcpy(compact + (size_t)i * d, padded + (size_t)r->row[i] * d, (size_t)d * sizeof(xf_act));
}

void XF_PART(rows_scatter)(const xf_rows *r, int d, const xf_act *compact, xf_act *padded)
{
    if (xf_compose_planted_bug != XF_BUG_PAD_ROWS_LEFT)
        memset(padded, 0, (size_t)r->batch * r->seq * d * sizeof(xf_act));
    for (int i = 0; i < r->n; i++)
        memcpy(padded + (size_t)r->row[i] * d, compact + (size_t)i * d, (size_t)d * sizeof(xf_act));
}

// Attention of the q rows onto the kv rows (compact, with their row
// strides); ctx is (q->n,d).
static void attend(xf_exec *ex, const xf_rows *q, const xf_rows *kv, int heads, int dk, const xf_act *qp, int ldq,
                   const xf_act *kp, const xf_act *vp, int ldkv, int causal, xf_act *ctx)
{
    const int d = heads * dk;
    xf_attention_args at = {.batch = q->batch, .heads = heads, .dk = dk, .seq_q = q->seq, .seq_k = kv->seq,
                            .XF_ACT(q) = qp, .ldq = ldq, .XF_ACT(k) = kp, .ldk = ldkv, .XF_ACT(v) = vp,
                            .ldv = ldkv, .causal = causal, .XF_ACT(out) = ctx, .ldo = d, .dtype = XF_ACT_DTYPE};
    if (!q->pad && !kv->pad) {
        xf_exec_call(ex, XF_ATTENTION, &at, sizeof at);
        return;
    }
    for (int b = 0; b < q->batch; b++) {
        if (!q->len[b]) continue;
        xf_act *out = ctx + (size_t)q->off[b] * d;
        if (!kv->len[b]) { // no key to see: zeros, the contract for such rows
            memset(out, 0, (size_t)q->len[b] * d * sizeof(xf_act));
            continue;
        }
        xf_attention_args one = at;
        one.batch = 1, one.seq_q = q->len[b], one.seq_k = kv->len[b];
        one.XF_ACT(q) = qp + (size_t)q->off[b] * ldq, one.XF_ACT(out) = out;
        one.XF_ACT(k) = kp + (size_t)kv->off[b] * ldkv, one.XF_ACT(v) = vp + (size_t)kv->off[b] * ldkv;
        xf_exec_call(ex, XF_ATTENTION, &one, sizeof one);
    }
}

// Self-attention on the q rows of x or, with kv_src, cross-attention onto
// the kv rows of kv_src (both compact); output projection into y.
static void mha(xf_exec *ex, const xf_rows *q, const xf_rows *kv, int heads, int dk, const xf_act *x,
                const xf_act *kv_src, const xf_mha_weights *w, int causal, xf_act *y)
{
    const int d = heads * dk;
    xf_act *ctx = xf_act_buffer(ex, (size_t)q->n * d);
    if (!kv_src) {
        xf_act *qkv = xf_act_buffer(ex, (size_t)q->n * 3 * d);
        XF_PART(linear)(ex, q->n, 3 * d, d, x, w->in_proj_w, w->in_proj_b, 0, qkv);
        attend(ex, q, q, heads, dk, qkv, 3 * d, qkv + d, qkv + 2 * d, 3 * d, causal, ctx);
    } else {
        xf_act *qp = xf_act_buffer(ex, (size_t)q->n * d), *kvp = xf_act_buffer(ex, (size_t)kv->n * 2 * d);
        XF_PART(linear)(ex, q->n, d, d, x, w->in_proj_w, w->in_proj_b, 0, qp);
        XF_PART(linear)(ex, kv->n, 2 * d, d, kv_src, w->in_proj_w + (size_t)d * d, w->in_proj_b + d, 0, kvp);
        attend(ex, q, kv, heads, dk, qp, d, kvp, kvp + d, 2 * d, causal, ctx);
    }
    XF_PART(linear)(ex, q->n, d, d, ctx, w->out_proj_w, w->out_proj_b, 0, y);
}

// x and y are (src->n,d), compact.
static void encoder_layer(xf_exec *ex, const xf_rows *src, int heads, int dk, int d_ff, const xf_act *x,
                          const xf_encoder_weights *w, xf_act *y)
{
    const int d = heads * dk, n = src->n;
    xf_act *branch = xf_act_buffer(ex, (size_t)n * d), *h = xf_act_buffer(ex, (size_t)n * d);
    mha(ex, src, src, heads, dk, x, NULL, &w->self_attn, 0, branch);
    XF_PART(add_norm)(ex, n, d, x, branch, &w->norm1, h);
    XF_PART(ffn)(ex, n, d, d_ff, h, &w->ffn, NULL, branch);
    XF_PART(add_norm)(ex, n, d, h, branch, &w->norm2, y);
}

// x and y are (tgt->n,d), memory (src->n,d), all compact.
static void decoder_layer(xf_exec *ex, const xf_rows *tgt, const xf_rows *src, int heads, int dk, int d_ff,
                          const xf_act *x, const xf_act *memory, const xf_decoder_weights *w, xf_act *y)
{
    const int d = heads * dk, n = tgt->n;
    xf_act *branch = xf_act_buffer(ex, (size_t)n * d);
    xf_act *h1 = xf_act_buffer(ex, (size_t)n * d), *h2 = xf_act_buffer(ex, (size_t)n * d);
    mha(ex, tgt, tgt, heads, dk, x, NULL, &w->self_attn, 1, branch);
    XF_PART(add_norm)(ex, n, d, x, branch, &w->norm1, h1);
    mha(ex, tgt, src, heads, dk, h1, memory, &w->cross_attn, 0, branch);
    XF_PART(add_norm)(ex, n, d, h1, branch, &w->norm2, h2);
    XF_PART(ffn)(ex, n, d, d_ff, h2, &w->ffn, NULL, branch);
    XF_PART(add_norm)(ex, n, d, h2, branch, &w->norm3, y);
}

// The real rows of x (padded) as compact rows: x itself without padding.
static const xf_act *compact(xf_exec *ex, const xf_rows *r, int d, const xf_act *x)
{
    if (!r->pad) return x;
    xf_act *c = xf_act_buffer(ex, (size_t)r->n * d);
    XF_PART(rows_gather)(r, d, x, c);
    return c;
}

// Where a compact result goes: y itself without padding, else scratch
// to scatter into y.
static xf_act *compact_out(xf_exec *ex, const xf_rows *r, int d, xf_act *y)
{
    return r->pad ? xf_act_buffer(ex, (size_t)r->n * d) : y;
}

static void encoder_layer_stage(xf_exec *ex, const xf_encoder_layer_args *a)
{
    const int d = a->heads * a->dk;
    const xf_rows src = xf_rows_of(ex, a->batch, a->seq, a->src_pad);
    xf_act *y = compact_out(ex, &src, d, a->XF_ACT(y));
    encoder_layer(ex, &src, a->heads, a->dk, a->d_ff, compact(ex, &src, d, a->XF_ACT(x)), a->w, y);
    if (src.pad) XF_PART(rows_scatter)(&src, d, y, a->XF_ACT(y));
}

static void decoder_layer_stage(xf_exec *ex, const xf_decoder_layer_args *a)
{
    const int d = a->heads * a->dk;
    const xf_rows tgt = xf_rows_of(ex, a->batch, a->seq_t, a->tgt_pad);
    const xf_rows src = xf_rows_of(ex, a->batch, a->seq_s, a->src_pad);
    xf_act *y = compact_out(ex, &tgt, d, a->XF_ACT(y));
    decoder_layer(ex, &tgt, &src, a->heads, a->dk, a->d_ff, compact(ex, &tgt, d, a->XF_ACT(x)),
                  compact(ex, &src, d, a->XF_ACT(memory)), a->w, y);
    if (tgt.pad) XF_PART(rows_scatter)(&tgt, d, y, a->XF_ACT(y));
}

// A stack's input, compact: the embedded ids (embedded whole, then
// gathered: the embedding is a gather itself), or the given sequence.
static const xf_act *stack_input(xf_exec *ex, const xf_forward_args *a, const xf_rows *r, const int32_t *ids,
                                 const float *table, const xf_act *x)
{
    const int d = a->heads * a->dk;
    if (ids) {
        xf_act *buf = xf_act_buffer(ex, (size_t)r->batch * r->seq * d);
        xf_embed_args e = {.batch = a->batch, .seq = r->seq, .d_model = d, .vocab = a->vocab, .ids = ids,
                           .XF_ACT(table) = XF_WEIGHT(ex, table, (size_t)a->vocab * d), .XF_ACT(y) = buf,
                           .dtype = XF_ACT_DTYPE};
        xf_exec_call(ex, XF_EMBED, &e, sizeof e);
        x = buf;
    }
    return compact(ex, r, d, x);
}

// A stack of layers on compact rows x (the decoder's when memory is given:
// rows attend to src's memory) in two ping-pong buffers, then the final
// norm if there is one; the result scattered to out and returned compact.
static const xf_act *layer_stack(xf_exec *ex, const xf_forward_args *a, const xf_rows *rows, const xf_rows *src,
                                 const xf_act *x, const xf_act *memory, xf_act *out)
{
    const int d = a->heads * a->dk, decoder = memory != NULL;
    xf_act *const buf[2] = {xf_act_buffer(ex, (size_t)rows->n * d), xf_act_buffer(ex, (size_t)rows->n * d)};
    for (int l = 0; l < (decoder ? a->dec_layers : a->enc_layers); l++) {
        xf_act *y = x == buf[0] ? buf[1] : buf[0];
        if (decoder)
            decoder_layer(ex, rows, src, a->heads, a->dk, a->d_ff, x, memory, &a->dec[l], y);
        else
            encoder_layer(ex, rows, a->heads, a->dk, a->d_ff, x, &a->enc[l], y);
        x = y;
    }
    const xf_norm_weights *norm = decoder ? &a->dec_norm : &a->enc_norm;
    if (norm->gamma) {
        xf_act *y = x == buf[0] ? buf[1] : buf[0];
        XF_PART(final_norm)(ex, rows->n, d, norm, x, y);
        x = y;
    }
    XF_PART(rows_scatter)(rows, d, x, out);
    return x;
}

const xf_act *XF_PART(encoder_stack)(xf_exec *ex, const xf_forward_args *a, const xf_rows *src)
{
    const xf_act *x = stack_input(ex, a, src, a->src_ids, a->src_table, a->XF_ACT(src_x));
    return layer_stack(ex, a, src, src, x, NULL, a->XF_ACT(memory));
}

static void forward(xf_exec *ex, const xf_forward_args *a)
{
    const xf_rows src = xf_rows_of(ex, a->batch, a->seq_s, a->src_pad);
    const xf_rows tgt = xf_rows_of(ex, a->batch, a->seq_t, a->tgt_pad);
    const xf_act *memory = XF_PART(encoder_stack)(ex, a, &src);
    const xf_act *x = stack_input(ex, a, &tgt, a->tgt_ids, a->tgt_table, a->XF_ACT(tgt_x));
    layer_stack(ex, a, &tgt, &src, x, memory, a->XF_ACT(y));
}

void XF_PART(dispatch)(xf_exec *ex, xf_stage stage, const void *args)
{
    switch (stage) {
    case XF_FFN: {
        const xf_ffn_args *a = args;
        XF_PART(ffn)(ex, a->m, a->d_model, a->d_ff, a->XF_ACT(x), a->w, NULL, a->XF_ACT(y));
        break;
    }
    case XF_ENCODER_LAYER: encoder_layer_stage(ex, args); break;
    case XF_DECODER_LAYER: decoder_layer_stage(ex, args); break;
    case XF_FORWARD: forward(ex, args); break;
    case XF_DECODE_LAYER: XF_PART(decode_layer)(ex, args); break;
    case XF_GENERATE: XF_PART(generate)(ex, args); break;
    default: break;
    }
}
