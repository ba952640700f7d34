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
#include <string.h>

#include "parts.h"

xf_compose_bug xf_compose_planted_bug = XF_BUG_NONE;

// A batch whose every token is padding leaves no rows: no call (oneDNN's
// matmul, for one, divides by M).
void xf_part_linear(xf_exec *ex, int m, int n, int k, const float *x, const float *w, const float *b, int relu,
                    float *y)
{
    if (m == 0) return;
    xf_linear_args a = {.m = m, .n = n, .k = k, .x = x, .w = w, .b = b, .relu = relu, .y = y};
    xf_exec_call(ex, XF_LINEAR, &a, sizeof a);
}

void xf_part_add_norm(xf_exec *ex, int rows, int d, const float *x, const float *r, const xf_norm_weights *n,
                      float *y)
{
    if (rows == 0) return;
    xf_add_layernorm_args a = {.rows = rows, .d = d, .x = x, .r = r, .gamma = n->gamma, .beta = n->beta, .y = y};
    xf_exec_call(ex, XF_ADD_LAYERNORM, &a, sizeof a);
}

void xf_part_ffn(xf_exec *ex, int m, int d, int d_ff, const float *x, const xf_ffn_weights *w, float *hidden,
                 float *y)
{
    if (!hidden) hidden = xf_exec_buffer(ex, (size_t)m * d_ff);
    xf_part_linear(ex, m, d_ff, d, x, w->w1, w->b1, 1, hidden);
    xf_part_linear(ex, m, d, d_ff, hidden, w->w2, w->b2, 0, y);
}

void xf_part_final_norm(xf_exec *ex, int rows, int d, const xf_norm_weights *n, const float *x, float *y)
{
    const float *zero = xf_exec_buffer(ex, (size_t)rows * d);
    xf_part_add_norm(ex, rows, d, x, zero, n, y);
}

xf_rows xf_rows_of(xf_exec *ex, int batch, int seq, const uint8_t *pad)
{
    xf_rows r = {.batch = batch, .seq = seq, .pad = pad};
    // ints in float-sized scratch: the same buffers on every pass
    r.off = (int *)xf_exec_buffer(ex, (size_t)batch);
    r.len = (int *)xf_exec_buffer(ex, (size_t)batch);
    r.row = (int *)xf_exec_buffer(ex, (size_t)batch * seq);
    if (!r.off || !r.len || !r.row) return r; // out of memory: prepare has failed
    for (int b = 0; b < batch; b++) {
        r.off[b] = r.n;
        for (int s = 0; s < seq; s++)
            if (!pad || !pad[(size_t)b * seq + s]) r.row[r.n++] = b * seq + s;
        r.len[b] = r.n - r.off[b];
    }
    return r;
}

void xf_rows_gather(const xf_rows *r, int d, const float *padded, float *compact)
{
    for (int i = 0; i < r->n; i++)
        memcpy(compact + (size_t)i * d, padded + (size_t)r->row[i] * d, (size_t)d * sizeof(float));
}

void xf_rows_scatter(const xf_rows *r, int d, const float *compact, float *padded)
{
    if (xf_compose_planted_bug != XF_BUG_PAD_ROWS_LEFT) memset(padded, 0, (size_t)r->batch * r->seq * d * sizeof(float));
    for (int i = 0; i < r->n; i++)
        memcpy(padded + (size_t)r->row[i] * d, compact + (size_t)i * d, (size_t)d * sizeof(float));
}

// Attention of the q rows onto the kv rows (compact, with their row
// strides); ctx is (q->n,d).
static void attend(xf_exec *ex, const xf_rows *q, const xf_rows *kv, int heads, int dk, const float *qp, int ldq,
                   const float *kp, const float *vp, int ldkv, int causal, float *ctx)
{
    const int d = heads * dk;
    xf_attention_args at = {.batch = q->batch, .heads = heads, .dk = dk, .seq_q = q->seq, .seq_k = kv->seq,
                            .q = qp, .ldq = ldq, .k = kp, .ldk = ldkv, .v = vp, .ldv = ldkv, .causal = causal,
                            .out = ctx, .ldo = d};
    if (!q->pad && !kv->pad) {
        xf_exec_call(ex, XF_ATTENTION, &at, sizeof at);
        return;
    }
    for (int b = 0; b < q->batch; b++) {
        if (!q->len[b]) continue;
        float *out = ctx + (size_t)q->off[b] * d;
        if (!kv->len[b]) { // no key to see: zeros, the contract for such rows
            memset(out, 0, (size_t)q->len[b] * d * sizeof(float));
            continue;
        }
        xf_attention_args one = at;
        one.batch = 1, one.seq_q = q->len[b], one.seq_k = kv->len[b];
        one.q = qp + (size_t)q->off[b] * ldq, one.out = out;
        one.k = kp + (size_t)kv->off[b] * ldkv, one.v = vp + (size_t)kv->off[b] * ldkv;
        xf_exec_call(ex, XF_ATTENTION, &one, sizeof one);
    }
}

// Self-attention on the q rows of x or, with kv_src, cross-attention onto
// the kv rows of kv_src (both compact); output projection into y.
static void mha(xf_exec *ex, const xf_rows *q, const xf_rows *kv, int heads, int dk, const float *x,
                const float *kv_src, const xf_mha_weights *w, int causal, float *y)
{
    const int d = heads * dk;
    float *ctx = xf_exec_buffer(ex, (size_t)q->n * d);
    if (!kv_src) {
        float *qkv = xf_exec_buffer(ex, (size_t)q->n * 3 * d);
        xf_part_linear(ex, q->n, 3 * d, d, x, w->in_proj_w, w->in_proj_b, 0, qkv);
        attend(ex, q, q, heads, dk, qkv, 3 * d, qkv + d, qkv + 2 * d, 3 * d, causal, ctx);
    } else {
        float *qp = xf_exec_buffer(ex, (size_t)q->n * d), *kvp = xf_exec_buffer(ex, (size_t)kv->n * 2 * d);
        xf_part_linear(ex, q->n, d, d, x, w->in_proj_w, w->in_proj_b, 0, qp);
        xf_part_linear(ex, kv->n, 2 * d, d, kv_src, w->in_proj_w + (size_t)d * d, w->in_proj_b + d, 0, kvp);
        attend(ex, q, kv, heads, dk, qp, d, kvp, kvp + d, 2 * d, causal, ctx);
    }
    xf_part_linear(ex, q->n, d, d, ctx, w->out_proj_w, w->out_proj_b, 0, y);
}

// x and y are (src->n,d), compact.
static void encoder_layer(xf_exec *ex, const xf_rows *src, int heads, int dk, int d_ff, const float *x,
                          const xf_encoder_weights *w, float *y)
{
    const int d = heads * dk, n = src->n;
    float *branch = xf_exec_buffer(ex, (size_t)n * d), *h = xf_exec_buffer(ex, (size_t)n * d);
    mha(ex, src, src, heads, dk, x, NULL, &w->self_attn, 0, branch);
    xf_part_add_norm(ex, n, d, x, branch, &w->norm1, h);
    xf_part_ffn(ex, n, d, d_ff, h, &w->ffn, NULL, branch);
    xf_part_add_norm(ex, n, d, h, branch, &w->norm2, y);
}

// x and y are (tgt->n,d), memory (src->n,d), all compact.
static void decoder_layer(xf_exec *ex, const xf_rows *tgt, const xf_rows *src, int heads, int dk, int d_ff,
                          const float *x, const float *memory, const xf_decoder_weights *w, float *y)
{
    const int d = heads * dk, n = tgt->n;
    float *branch = xf_exec_buffer(ex, (size_t)n * d);
    float *h1 = xf_exec_buffer(ex, (size_t)n * d), *h2 = xf_exec_buffer(ex, (size_t)n * d);
    mha(ex, tgt, tgt, heads, dk, x, NULL, &w->self_attn, 1, branch);
    xf_part_add_norm(ex, n, d, x, branch, &w->norm1, h1);
    mha(ex, tgt, src, heads, dk, h1, memory, &w->cross_attn, 0, branch);
    xf_part_add_norm(ex, n, d, h1, branch, &w->norm2, h2);
    xf_part_ffn(ex, n, d, d_ff, h2, &w->ffn, NULL, branch);
    xf_part_add_norm(ex, n, d, h2, branch, &w->norm3, y);
}

// The real rows of x (padded) as compact rows: x itself without padding.
static const float *compact(xf_exec *ex, const xf_rows *r, int d, const float *x)
{
    if (!r->pad) return x;
    float *c = xf_exec_buffer(ex, (size_t)r->n * d);
    xf_rows_gather(r, d, x, c);
    return c;
}

// Where a compact result goes: y itself without padding, else scratch
// to scatter into y.
static float *compact_out(xf_exec *ex, const xf_rows *r, int d, float *y)
{
    return r->pad ? xf_exec_buffer(ex, (size_t)r->n * d) : y;
}

static void encoder_layer_stage(xf_exec *ex, const xf_encoder_layer_args *a)
{
    const int d = a->heads * a->dk;
    const xf_rows src = xf_rows_of(ex, a->batch, a->seq, a->src_pad);
    float *y = compact_out(ex, &src, d, a->y);
    encoder_layer(ex, &src, a->heads, a->dk, a->d_ff, compact(ex, &src, d, a->x), a->w, y);
    if (src.pad) xf_rows_scatter(&src, d, y, a->y);
}

static void decoder_layer_stage(xf_exec *ex, const xf_decoder_layer_args *a)
{
    const int d = a->heads * a->dk;
    const xf_rows tgt = xf_rows_of(ex, a->batch, a->seq_t, a->tgt_pad);
    const xf_rows src = xf_rows_of(ex, a->batch, a->seq_s, a->src_pad);
    float *y = compact_out(ex, &tgt, d, a->y);
    decoder_layer(ex, &tgt, &src, a->heads, a->dk, a->d_ff, compact(ex, &tgt, d, a->x),
                  compact(ex, &src, d, a->memory), a->w, y);
    if (tgt.pad) xf_rows_scatter(&tgt, d, y, a->y);
}

// A stack's input, compact: the embedded ids (embedded whole, then
// gathered: the embedding is a gather itself), or the given sequence.
static const float *stack_input(xf_exec *ex, const xf_forward_args *a, const xf_rows *r, const int32_t *ids,
                                const float *table, const float *x)
{
    const int d = a->heads * a->dk;
    if (ids) {
        float *buf = xf_exec_buffer(ex, (size_t)r->batch * r->seq * d);
        xf_embed_args e = {.batch = a->batch, .seq = r->seq, .d_model = d, .vocab = a->vocab, .ids = ids,
                           .table = table, .y = buf};
        xf_exec_call(ex, XF_EMBED, &e, sizeof e);
        x = buf;
    }
    return compact(ex, r, d, x);
}

// A stack of layers on compact rows: two ping-pong buffers, the result in
// the last one written (or the final norm's).
typedef struct {
    const float *x;
    float *buf[2];
} stack;

static float *next_buffer(stack *s) { return (float *)(s->x == s->buf[0] ? s->buf[1] : s->buf[0]); }

const float *xf_part_encoder_stack(xf_exec *ex, const xf_forward_args *a, const xf_rows *src)
{
    const int d = a->heads * a->dk;
    stack s = {stack_input(ex, a, src, a->src_ids, a->src_table, a->src_x),
               {xf_exec_buffer(ex, (size_t)src->n * d), xf_exec_buffer(ex, (size_t)src->n * d)}};
    for (int l = 0; l < a->enc_layers; l++) {
        float *y = next_buffer(&s);
        encoder_layer(ex, src, a->heads, a->dk, a->d_ff, s.x, &a->enc[l], y);
        s.x = y;
    }
    if (a->enc_norm.gamma) {
        float *y = next_buffer(&s);
        xf_part_final_norm(ex, src->n, d, &a->enc_norm, s.x, y);
        s.x = y;
    }
    xf_rows_scatter(src, d, s.x, a->memory);
    return s.x;
}

static void forward(xf_exec *ex, const xf_forward_args *a)
{
    const int d = a->heads * a->dk;
    const xf_rows src = xf_rows_of(ex, a->batch, a->seq_s, a->src_pad);
    const xf_rows tgt = xf_rows_of(ex, a->batch, a->seq_t, a->tgt_pad);
    const float *memory = xf_part_encoder_stack(ex, a, &src);
    stack s = {stack_input(ex, a, &tgt, a->tgt_ids, a->tgt_table, a->tgt_x),
               {xf_exec_buffer(ex, (size_t)tgt.n * d), xf_exec_buffer(ex, (size_t)tgt.n * d)}};
    for (int l = 0; l < a->dec_layers; l++) {
        float *y = next_buffer(&s);
        decoder_layer(ex, &tgt, &src, a->heads, a->dk, a->d_ff, s.x, memory, &a->dec[l], y);
        s.x = y;
    }
    if (a->dec_norm.gamma) {
        float *y = next_buffer(&s);
        xf_part_final_norm(ex, tgt.n, d, &a->dec_norm, s.x, y);
        s.x = y;
    }
    xf_rows_scatter(&tgt, d, s.x, a->y);
}

static void dispatch(xf_exec *ex, xf_stage stage, const void *args)
{
    switch (stage) {
    case XF_FFN: {
        const xf_ffn_args *a = args;
        xf_part_ffn(ex, a->m, a->d_model, a->d_ff, a->x, a->w, NULL, a->y);
        break;
    }
    case XF_ENCODER_LAYER: encoder_layer_stage(ex, args); break;
    case XF_DECODER_LAYER: decoder_layer_stage(ex, args); break;
    case XF_FORWARD: forward(ex, args); break;
    case XF_DECODE_LAYER: xf_compose_decode_layer(ex, args); break;
    case XF_GENERATE: xf_compose_generate(ex, args); break;
    default: break;
    }
}

int xf_compose_prepare(xf_exec *ex, const xf_ops *ops, xf_stage stage, const void *args)
{
    memset(ex, 0, sizeof *ex);
    ex->ops = *ops;
    xf_exec_begin(ex, 1);
    dispatch(ex, stage, args);
    return ex->failed ? -1 : 0;
}

void xf_compose_run(xf_exec *ex, xf_stage stage, const void *args)
{
    xf_exec_begin(ex, 0);
    dispatch(ex, stage, args);
}
