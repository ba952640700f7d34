// Compound stages as sequences of primitive calls; the fp32 twin of
// kernels/layers_ref.c and kernels/forward_ref.c. Self-attention uses one
// packed QKV linear (n = 3 d_model), cross-attention a Q linear on the
// decoder stream and a packed KV linear on memory, as PyTorch does.
#include <string.h>

#include "exec.h"

static void linear(xf_exec *ex, int m, int n, int k, const float *x, const float *w,
                   const float *b, int relu, float *y)
{
    xf_linear_args a = {.m = m, .n = n, .k = k, .x = x, .w = w, .b = b, .relu = relu, .y = y};
    xf_exec_call(ex, XF_LINEAR, &a);
}

static void add_norm(xf_exec *ex, int rows, int d, const float *x, const float *r,
                     const xf_norm_weights *n, float *y)
{
    xf_add_layernorm_args a = {.rows = rows, .d = d, .x = x, .r = r, .gamma = n->gamma,
                               .beta = n->beta, .y = y};
    xf_exec_call(ex, XF_ADD_LAYERNORM, &a);
}

// x is (m,d): y = linear2(ReLU(linear1(x))), hidden (m,d_ff) in scratch.
static void ffn(xf_exec *ex, int m, int d, int d_ff, const float *x, const xf_ffn_weights *w,
                float *y)
{
    float *hidden = xf_exec_buffer(ex, (size_t)m * d_ff);
    linear(ex, m, d_ff, d, x, w->w1, w->b1, 1, hidden);
    linear(ex, m, d, d_ff, hidden, w->w2, w->b2, 0, y);
}

// Self-attention on x (batch,seq,d) or, with kv != NULL, cross-attention of
// x onto kv (batch,seq_k,d). Output projection written to y.
static void mha(xf_exec *ex, int batch, int seq, int seq_k, int heads, int dk, const float *x,
                const float *kv_src, const xf_mha_weights *w, const uint8_t *key_pad,
                int causal, float *y)
{
    const int d = heads * dk;
    float *ctx = xf_exec_buffer(ex, (size_t)batch * seq * d);
    xf_attention_args at = {.batch = batch, .heads = heads, .dk = dk, .seq_q = seq,
                            .seq_k = seq_k, .key_pad = key_pad, .causal = causal,
                            .out = ctx, .ldo = d};
    if (!kv_src) {
        float *qkv = xf_exec_buffer(ex, (size_t)batch * seq * 3 * d);
        linear(ex, batch * seq, 3 * d, d, x, w->in_proj_w, w->in_proj_b, 0, qkv);
        at.q = qkv, at.k = qkv + d, at.v = qkv + 2 * d;
        at.ldq = at.ldk = at.ldv = 3 * d;
    } else {
        float *q = xf_exec_buffer(ex, (size_t)batch * seq * d);
        float *kv = xf_exec_buffer(ex, (size_t)batch * seq_k * 2 * d);
        linear(ex, batch * seq, d, d, x, w->in_proj_w, w->in_proj_b, 0, q);
        linear(ex, batch * seq_k, 2 * d, d, kv_src, w->in_proj_w + (size_t)d * d,
               w->in_proj_b + d, 0, kv);
        at.q = q, at.k = kv, at.v = kv + d;
        at.ldq = d, at.ldk = at.ldv = 2 * d;
    }
    xf_exec_call(ex, XF_ATTENTION, &at);
    linear(ex, batch * seq, d, d, ctx, w->out_proj_w, w->out_proj_b, 0, y);
}

static void encoder_layer(xf_exec *ex, const xf_encoder_layer_args *a)
{
    const int d = a->heads * a->dk, rows = a->batch * a->seq;
    float *branch = xf_exec_buffer(ex, (size_t)rows * d);
    float *h = xf_exec_buffer(ex, (size_t)rows * d);
    mha(ex, a->batch, a->seq, a->seq, a->heads, a->dk, a->x, NULL, &a->w->self_attn,
        a->src_pad, 0, branch);
    add_norm(ex, rows, d, a->x, branch, &a->w->norm1, h);
    ffn(ex, rows, d, a->d_ff, h, &a->w->ffn, branch);
    add_norm(ex, rows, d, h, branch, &a->w->norm2, a->y);
}

static void decoder_layer(xf_exec *ex, const xf_decoder_layer_args *a)
{
    const int d = a->heads * a->dk, rows = a->batch * a->seq_t;
    float *branch = xf_exec_buffer(ex, (size_t)rows * d);
    float *h1 = xf_exec_buffer(ex, (size_t)rows * d);
    float *h2 = xf_exec_buffer(ex, (size_t)rows * d);
    mha(ex, a->batch, a->seq_t, a->seq_t, a->heads, a->dk, a->x, NULL, &a->w->self_attn,
        a->tgt_pad, 1, branch);
    add_norm(ex, rows, d, a->x, branch, &a->w->norm1, h1);
    mha(ex, a->batch, a->seq_t, a->seq_s, a->heads, a->dk, h1, a->memory, &a->w->cross_attn,
        a->src_pad, 0, branch);
    add_norm(ex, rows, d, h1, branch, &a->w->norm2, h2);
    ffn(ex, rows, d, a->d_ff, h2, &a->w->ffn, branch);
    add_norm(ex, rows, d, h2, branch, &a->w->norm3, a->y);
}

// x <- LayerNorm(x) through add_layernorm with a zero residual (zeros
// buffer from scratch), so every family's LayerNorm serves the final norms.
static void final_norm(xf_exec *ex, int rows, int d, const xf_norm_weights *n, const float *x,
                       float *y)
{
    const float *zero = xf_exec_buffer(ex, (size_t)rows * d);
    add_norm(ex, rows, d, x, zero, n, y);
}

// One stack's input: the embedded ids (into buf), or the given embedded
// sequence as is.
static const float *stack_input(xf_exec *ex, const xf_forward_args *a, int seq,
                                const int32_t *ids, const float *table, const float *x, float *buf)
{
    if (!ids) return x;
    xf_embed_args e = {.batch = a->batch, .seq = seq, .d_model = a->heads * a->dk,
                       .vocab = a->vocab, .ids = ids, .table = table, .y = buf};
    xf_exec_call(ex, XF_EMBED, &e);
    return buf;
}

// Two ping-pong buffers per stack; the last layer (or the final norm)
// writes straight into the caller's output.
static void forward(xf_exec *ex, const xf_forward_args *a)
{
    const int d = a->heads * a->dk;
    const int src_rows = a->batch * a->seq_s, tgt_rows = a->batch * a->seq_t;
    float *s[2] = {xf_exec_buffer(ex, (size_t)src_rows * d), xf_exec_buffer(ex, (size_t)src_rows * d)};
    float *t[2] = {xf_exec_buffer(ex, (size_t)tgt_rows * d), xf_exec_buffer(ex, (size_t)tgt_rows * d)};

    const float *x = stack_input(ex, a, a->seq_s, a->src_ids, a->src_table, a->src_x, s[0]);
    for (int l = 0; l < a->enc_layers; l++) {
        int last = l == a->enc_layers - 1 && !a->enc_norm.gamma;
        float *y = last ? a->memory : (x == s[0] ? s[1] : s[0]);
        xf_encoder_layer_args e = {.batch = a->batch, .seq = a->seq_s, .heads = a->heads,
                                   .dk = a->dk, .d_ff = a->d_ff, .x = x, .src_pad = a->src_pad,
                                   .w = &a->enc[l], .y = y};
        encoder_layer(ex, &e);
        x = y;
    }
    if (a->enc_norm.gamma) final_norm(ex, src_rows, d, &a->enc_norm, x, a->memory);
    else if (a->enc_layers == 0) memcpy(a->memory, x, (size_t)src_rows * d * sizeof(float));

    x = stack_input(ex, a, a->seq_t, a->tgt_ids, a->tgt_table, a->tgt_x, t[0]);
    for (int l = 0; l < a->dec_layers; l++) {
        int last = l == a->dec_layers - 1 && !a->dec_norm.gamma;
        float *y = last ? a->y : (x == t[0] ? t[1] : t[0]);
        xf_decoder_layer_args dl = {.batch = a->batch, .seq_t = a->seq_t, .seq_s = a->seq_s,
                                    .heads = a->heads, .dk = a->dk, .d_ff = a->d_ff, .x = x,
                                    .memory = a->memory, .tgt_pad = a->tgt_pad,
                                    .src_pad = a->src_pad, .w = &a->dec[l], .y = y};
        decoder_layer(ex, &dl);
        x = y;
    }
    if (a->dec_norm.gamma) final_norm(ex, tgt_rows, d, &a->dec_norm, x, a->y);
    else if (a->dec_layers == 0) memcpy(a->y, x, (size_t)tgt_rows * d * sizeof(float));
}

static void dispatch(xf_exec *ex, xf_stage stage, const void *args)
{
    switch (stage) {
    case XF_FFN: {
        const xf_ffn_args *a = args;
        ffn(ex, a->m, a->d_model, a->d_ff, a->x, a->w, a->y);
        break;
    }
    case XF_ENCODER_LAYER: encoder_layer(ex, args); break;
    case XF_DECODER_LAYER: decoder_layer(ex, args); break;
    case XF_FORWARD: forward(ex, args); break;
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
