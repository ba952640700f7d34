// Compound stages as sequences of primitive calls; the fp32 twin of
// kernels/layers_ref.c and kernels/forward_ref.c. Self-attention uses one
// packed QKV linear (n = 3 d_model), cross-attention a Q linear on the
// decoder stream and a packed KV linear on memory, as PyTorch does.
#include <string.h>

#include "exec.h"

xf_compose_bug xf_compose_planted_bug = XF_BUG_NONE;

static void linear(xf_exec *ex, int m, int n, int k, const float *x, const float *w,
                   const float *b, int relu, float *y)
{
    xf_linear_args a = {.m = m, .n = n, .k = k, .x = x, .w = w, .b = b, .relu = relu, .y = y};
    xf_exec_call(ex, XF_LINEAR, &a, sizeof a);
}

static void add_norm(xf_exec *ex, int rows, int d, const float *x, const float *r,
                     const xf_norm_weights *n, float *y)
{
    xf_add_layernorm_args a = {.rows = rows, .d = d, .x = x, .r = r, .gamma = n->gamma,
                               .beta = n->beta, .y = y};
    xf_exec_call(ex, XF_ADD_LAYERNORM, &a, sizeof a);
}

// x is (m,d): y = linear2(ReLU(linear1(x))), hidden (m,d_ff) in scratch
// (NULL: a buffer of its own).
static void ffn(xf_exec *ex, int m, int d, int d_ff, const float *x, const xf_ffn_weights *w,
                float *hidden, float *y)
{
    if (!hidden) hidden = xf_exec_buffer(ex, (size_t)m * d_ff);
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
    xf_exec_call(ex, XF_ATTENTION, &at, sizeof at);
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
    ffn(ex, rows, d, a->d_ff, h, &a->w->ffn, NULL, branch);
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
    ffn(ex, rows, d, a->d_ff, h2, &a->w->ffn, NULL, branch);
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
    xf_exec_call(ex, XF_EMBED, &e, sizeof e);
    return buf;
}

// Two ping-pong buffers per stack; the last layer (or the final norm)
// writes straight into the caller's output.
static void encoder_stack(xf_exec *ex, const xf_forward_args *a)
{
    const int d = a->heads * a->dk, src_rows = a->batch * a->seq_s;
    float *s[2] = {xf_exec_buffer(ex, (size_t)src_rows * d), xf_exec_buffer(ex, (size_t)src_rows * d)};

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
}

static void forward(xf_exec *ex, const xf_forward_args *a)
{
    const int d = a->heads * a->dk, tgt_rows = a->batch * a->seq_t;
    float *t[2] = {xf_exec_buffer(ex, (size_t)tgt_rows * d), xf_exec_buffer(ex, (size_t)tgt_rows * d)};
    encoder_stack(ex, a);
    const float *x = stack_input(ex, a, a->seq_t, a->tgt_ids, a->tgt_table, a->tgt_x, t[0]);
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

// One decoder layer for each sequence's new token at position pos: the
// token's K|V goes into cache row pos before self-attention reads rows
// 0..pos (the token sees itself, as row pos of the causal full pass does).
// A step's activations, allocated once and passed to every step, so that a
// call of step t has the very args of the same call at step t - 1 and
// shares its prepared context (exec.c): the weights are packed once, not
// once per step.
typedef struct {
    float *qkv, *ctx, *branch, *q, *h1, *h2, *hidden;
} step_buffers;

static step_buffers step_buffers_new(xf_exec *ex, int batch, int d, int d_ff)
{
    const size_t rows = (size_t)batch;
    step_buffers s = {xf_exec_buffer(ex, rows * 3 * d), xf_exec_buffer(ex, rows * d), xf_exec_buffer(ex, rows * d),
                      xf_exec_buffer(ex, rows * d),     xf_exec_buffer(ex, rows * d), xf_exec_buffer(ex, rows * d),
                      xf_exec_buffer(ex, rows * d_ff)};
    return s;
}

static void decode_layer(xf_exec *ex, const xf_decode_layer_args *a, const step_buffers *sb)
{
    const int d = a->heads * a->dk, B = a->batch;
    const size_t row = 2 * (size_t)d; // floats of one cache row
    float *qkv = sb->qkv, *ctx = sb->ctx, *branch = sb->branch, *q = sb->q, *h1 = sb->h1, *h2 = sb->h2;
    const xf_compose_bug bug = xf_compose_planted_bug;
    linear(ex, B, 3 * d, d, a->x, a->w->self_attn.in_proj_w, a->w->self_attn.in_proj_b, 0, qkv);
    if (bug != XF_BUG_APPEND_LATE)
        for (int b = 0; b < B; b++)
            memcpy(a->self_kv + ((size_t)b * a->capacity + a->pos) * row, qkv + (size_t)b * 3 * d + d,
                   row * sizeof(float));
    xf_attention_args self = {.batch = B, .heads = a->heads, .dk = a->dk, .seq_q = 1,
                              .seq_k = a->pos + 1 - (bug == XF_BUG_CACHE_SHORT && a->pos > 0), .q = qkv, .ldq = 3 * d,
                              .k = a->self_kv, .ldk = (int)row, .v = a->self_kv + d, .ldv = (int)row,
                              .kv_rows = a->capacity, .out = ctx, .ldo = d};
    xf_exec_call(ex, XF_ATTENTION, &self, sizeof self);
    if (bug == XF_BUG_APPEND_LATE)
        for (int b = 0; b < B; b++)
            memcpy(a->self_kv + ((size_t)b * a->capacity + a->pos) * row, qkv + (size_t)b * 3 * d + d,
                   row * sizeof(float));
    linear(ex, B, d, d, ctx, a->w->self_attn.out_proj_w, a->w->self_attn.out_proj_b, 0, branch);
    add_norm(ex, B, d, a->x, branch, &a->w->norm1, h1);

    const xf_mha_weights *cw = &a->w->cross_attn;
    linear(ex, B, d, d, h1, cw->in_proj_w, cw->in_proj_b, 0, q);
    xf_attention_args cross = {.batch = B, .heads = a->heads, .dk = a->dk, .seq_q = 1, .seq_k = a->seq_s,
                               .q = q, .ldq = d, .k = a->cross_kv, .ldk = (int)row, .v = a->cross_kv + d,
                               .ldv = (int)row, .key_pad = a->src_pad, .out = ctx, .ldo = d};
    if (bug == XF_BUG_CROSS_READS_SELF) {
        cross.k = a->self_kv, cross.v = a->self_kv + d;
        cross.seq_k = a->pos + 1, cross.kv_rows = a->capacity, cross.key_pad = NULL;
    }
    xf_exec_call(ex, XF_ATTENTION, &cross, sizeof cross);
    linear(ex, B, d, d, ctx, cw->out_proj_w, cw->out_proj_b, 0, branch);
    add_norm(ex, B, d, h1, branch, &a->w->norm2, h2);
    ffn(ex, B, d, a->d_ff, h2, &a->w->ffn, sb->hidden, branch);
    add_norm(ex, B, d, h2, branch, &a->w->norm3, a->y);
}

// Index of the largest of n values (the first on ties, as torch.argmax).
static int32_t argmax(const float *v, int n)
{
    int32_t best = 0;
    for (int i = 1; i < n; i++)
        if (v[i] > v[best]) best = i;
    return best;
}

// The encoder once, the memory's K|V once per decoder layer, then one step
// per token through every layer, the final norm and the logits. The caches
// (one per layer, `steps` rows) and every activation are scratch from
// prepare; a step's rows are copied into y and logits, the outputs.
static void generate(xf_exec *ex, const xf_generate_args *a)
{
    const int d = a->heads * a->dk, B = a->batch, L = a->dec_layers;
    const size_t src_rows = (size_t)B * a->seq_s, row = 2 * (size_t)d;
    xf_forward_args enc = {.batch = B, .seq_s = a->seq_s, .heads = a->heads, .dk = a->dk, .d_ff = a->d_ff,
                           .enc_layers = a->enc_layers, .vocab = a->vocab, .src_ids = a->src_ids,
                           .src_table = a->src_table, .enc = a->enc, .enc_norm = a->enc_norm,
                           .src_pad = a->src_pad, .memory = a->memory};
    encoder_stack(ex, &enc);
    float *x = xf_exec_buffer(ex, (size_t)B * d), *t[2] = {xf_exec_buffer(ex, (size_t)B * d),
                                                            xf_exec_buffer(ex, (size_t)B * d)};
    float *normed = xf_exec_buffer(ex, (size_t)B * d), *logits = xf_exec_buffer(ex, (size_t)B * a->vocab);
    int32_t *ids = (int32_t *)xf_exec_buffer(ex, (size_t)B);
    const step_buffers sb = step_buffers_new(ex, B, d, a->d_ff);
    float **self_kv = (float **)xf_exec_buffer(ex, (size_t)L * sizeof(float *) / sizeof(float) + 1);
    float **cross_kv = (float **)xf_exec_buffer(ex, (size_t)L * sizeof(float *) / sizeof(float) + 1);
    for (int l = 0; l < L; l++) {
        self_kv[l] = xf_exec_buffer(ex, (size_t)B * a->steps * row);
        cross_kv[l] = xf_exec_buffer(ex, src_rows * row);
        const xf_mha_weights *cw = &a->dec[l].cross_attn;
        linear(ex, (int)src_rows, 2 * d, d, a->memory, cw->in_proj_w + (size_t)d * d, cw->in_proj_b + d, 0,
               cross_kv[l]);
    }
    for (int step = 0; step < a->steps; step++) {
        for (int b = 0; b < B; b++) {
            int32_t id = a->tgt_ids[(size_t)b * a->steps + step];
            if (a->greedy && step > 0) id = argmax(logits + (size_t)b * a->vocab, a->vocab);
            ids[b] = a->tokens[(size_t)b * a->steps + step] = id;
        }
        xf_embed_args e = {.batch = B, .seq = 1, .d_model = d, .vocab = a->vocab, .pos0 = step, .ids = ids,
                           .table = a->tgt_table, .y = x};
        xf_exec_call(ex, XF_EMBED, &e, sizeof e);
        const float *in = x;
        for (int l = 0; l < L; l++) {
            float *out = t[l % 2];
            xf_decode_layer_args s = {.batch = B, .heads = a->heads, .dk = a->dk, .d_ff = a->d_ff,
                                      .seq_s = a->seq_s, .pos = step, .capacity = a->steps, .x = in,
                                      .self_kv = self_kv[l], .cross_kv = cross_kv[l], .src_pad = a->src_pad,
                                      .w = &a->dec[l], .y = out};
            decode_layer(ex, &s, &sb);
            in = out;
        }
        if (a->dec_norm.gamma) {
            final_norm(ex, B, d, &a->dec_norm, in, normed);
            in = normed;
        }
        xf_lm_head_args h = {.rows = B, .d_model = d, .vocab = a->vocab, .x = in, .table = a->tgt_table,
                             .logits = logits};
        xf_exec_call(ex, XF_LM_HEAD, &h, sizeof h);
        for (int b = 0; b < B; b++) {
            memcpy(a->y + ((size_t)b * a->steps + step) * d, in + (size_t)b * d, (size_t)d * sizeof(float));
            memcpy(a->logits + ((size_t)b * a->steps + step) * a->vocab, logits + (size_t)b * a->vocab,
                   (size_t)a->vocab * sizeof(float));
        }
    }
}

static void dispatch(xf_exec *ex, xf_stage stage, const void *args)
{
    switch (stage) {
    case XF_FFN: {
        const xf_ffn_args *a = args;
        ffn(ex, a->m, a->d_model, a->d_ff, a->x, a->w, NULL, a->y);
        break;
    }
    case XF_ENCODER_LAYER: encoder_layer(ex, args); break;
    case XF_DECODER_LAYER: decoder_layer(ex, args); break;
    case XF_FORWARD: forward(ex, args); break;
    case XF_DECODE_LAYER: {
        const xf_decode_layer_args *a = args;
        const step_buffers sb = step_buffers_new(ex, a->batch, a->heads * a->dk, a->d_ff);
        decode_layer(ex, a, &sb);
        break;
    }
    case XF_GENERATE: generate(ex, args); break;
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
