// Decoding as sequences of primitive calls (kernels/decode.h): one decode
// step of a layer, and generation. The caches are (batch,capacity,2*d):
// a step appends its token's K|V at row pos and self-attention reads rows
// 0..pos in place (attention's kv_rows is the capacity). Written once for
// both dtypes (act.h), as compose.c.
#include <string.h>

#include "parts.h"

// A step's activations, allocated once and passed to every step, so that a
// call of step t has the very args of the same call at step t - 1 and
// shares its prepared context (exec.c): the weights are packed once, not
// once per step.
typedef struct {
    xf_act *qkv, *ctx, *branch, *q, *h1, *h2, *hidden;
} step_buffers;

static step_buffers step_buffers_new(xf_exec *ex, int batch, int d, int d_ff)
{
    const size_t rows = (size_t)batch;
    step_buffers s = {xf_act_buffer(ex, rows * 3 * d), xf_act_buffer(ex, rows * d), xf_act_buffer(ex, rows * d),
                      xf_act_buffer(ex, rows * d),     xf_act_buffer(ex, rows * d), xf_act_buffer(ex, rows * d),
                      xf_act_buffer(ex, rows * d_ff)};
    return s;
}

// One decoder layer for each sequence's new token at position pos: the
// token's K|V goes into cache row pos before self-attention reads rows
// 0..pos (the token sees itself, as row pos of the causal full pass does).
static void decode_layer(xf_exec *ex, const xf_decode_layer_args *a, const step_buffers *sb)
{
    const int d = a->heads * a->dk, B = a->batch;
    const size_t row = 2 * (size_t)d; // elements of one cache row
    xf_act *qkv = sb->qkv, *ctx = sb->ctx, *branch = sb->branch, *q = sb->q, *h1 = sb->h1, *h2 = sb->h2;
    xf_act *self_kv = a->XF_ACT(self_kv);
    const xf_act *cross_kv = a->XF_ACT(cross_kv);
    const xf_compose_bug bug = xf_compose_planted_bug;
    XF_PART(linear)(ex, B, 3 * d, d, a->XF_ACT(x), a->w->self_attn.in_proj_w, a->w->self_attn.in_proj_b, 0, qkv);
    if (bug != XF_BUG_APPEND_LATE)
        for (int b = 0; b < B; b++)
            memcpy(self_kv + ((size_t)b * a->capacity + a->pos) * row, qkv + (size_t)b * 3 * d + d,
                   row * sizeof(xf_act));
    xf_attention_args self = {.batch = B, .heads = a->heads, .dk = a->dk, .seq_q = 1,
                              .seq_k = a->pos + 1 - (bug == XF_BUG_CACHE_SHORT && a->pos > 0), .XF_ACT(q) = qkv,
                              .ldq = 3 * d, .XF_ACT(k) = self_kv, .ldk = (int)row, .XF_ACT(v) = self_kv + d,
                              .ldv = (int)row, .kv_rows = a->capacity, .XF_ACT(out) = ctx, .ldo = d,
                              .dtype = XF_ACT_DTYPE};
    xf_exec_call(ex, XF_ATTENTION, &self, sizeof self);
    if (bug == XF_BUG_APPEND_LATE)
        for (int b = 0; b < B; b++)
            memcpy(self_kv + ((size_t)b * a->capacity + a->pos) * row, qkv + (size_t)b * 3 * d + d,
                   row * sizeof(xf_act));
    XF_PART(linear)(ex, B, d, d, ctx, a->w->self_attn.out_proj_w, a->w->self_attn.out_proj_b, 0, branch);
    XF_PART(add_norm)(ex, B, d, a->XF_ACT(x), branch, &a->w->norm1, h1);

    const xf_mha_weights *cw = &a->w->cross_attn;
    XF_PART(linear)(ex, B, d, d, h1, cw->in_proj_w, cw->in_proj_b, 0, q);
    xf_attention_args cross = {.batch = B, .heads = a->heads, .dk = a->dk, .seq_q = 1, .seq_k = a->seq_s,
                               .XF_ACT(q) = q, .ldq = d, .XF_ACT(k) = cross_kv, .ldk = (int)row,
                               .XF_ACT(v) = cross_kv + d, .ldv = (int)row, .key_pad = a->src_pad,
                               .XF_ACT(out) = ctx, .ldo = d, .dtype = XF_ACT_DTYPE};
    if (bug == XF_BUG_CROSS_READS_SELF) {
        cross.XF_ACT(k) = self_kv, cross.XF_ACT(v) = self_kv + d;
        cross.seq_k = a->pos + 1, cross.kv_rows = a->capacity, cross.key_pad = NULL;
    }
    xf_exec_call(ex, XF_ATTENTION, &cross, sizeof cross);
    XF_PART(linear)(ex, B, d, d, ctx, cw->out_proj_w, cw->out_proj_b, 0, branch);
    XF_PART(add_norm)(ex, B, d, h1, branch, &a->w->norm2, h2);
    XF_PART(ffn)(ex, B, d, a->d_ff, h2, &a->w->ffn, sb->hidden, branch);
    XF_PART(add_norm)(ex, B, d, h2, branch, &a->w->norm3, a->XF_ACT(y));
}

// Index of the largest of n values (the first on ties, as torch.argmax).
static int32_t argmax(const xf_act *v, int n)
{
    int32_t best = 0;
    for (int i = 1; i < n; i++)
        if (xf_act_value(v[i]) > xf_act_value(v[best])) best = i;
    return best;
}

// A step's input x (batch,d): its tokens embedded at position step (the
// target's, or under greedy the argmax of the last step's logits, written
// to tokens), or the given embedded target's row step of each sequence.
static void step_input(xf_exec *ex, const xf_generate_args *a, int step, const xf_act *logits, int32_t *ids,
                       xf_act *x)
{
    const int d = a->heads * a->dk, B = a->batch;
    if (!a->tgt_ids) {
        for (int b = 0; b < B; b++)
            memcpy(x + (size_t)b * d, a->XF_ACT(tgt_x) + ((size_t)b * a->steps + step) * d, (size_t)d * sizeof(xf_act));
        return;
    }
    for (int b = 0; b < B; b++) {
        int32_t id = a->tgt_ids[(size_t)b * a->steps + step];
        if (a->greedy && step > 0) id = argmax(logits + (size_t)b * a->vocab, a->vocab);
        ids[b] = a->tokens[(size_t)b * a->steps + step] = id;
    }
    xf_embed_args e = {.batch = B, .seq = 1, .d_model = d, .vocab = a->vocab, .pos0 = step, .ids = ids,
                       .XF_ACT(table) = XF_WEIGHT(ex, a->tgt_table, (size_t)a->vocab * d),
                       .XF_ACT(y) = x, .dtype = XF_ACT_DTYPE};
    xf_exec_call(ex, XF_EMBED, &e, sizeof e);
}

// A step's rows (batch,d) and logits (batch,vocab) into the outputs y and
// logits at row step of each sequence.
static void step_output(const xf_generate_args *a, int step, const xf_act *in, const xf_act *logits)
{
    const int d = a->heads * a->dk;
    for (int b = 0; b < a->batch; b++) {
        // Past a sequence's end (its trailing target padding) the step
        // still runs for the batch; its row is zero by contract.
        xf_act *y = a->XF_ACT(y) + ((size_t)b * a->steps + step) * d;
        if (a->tgt_pad && a->tgt_pad[(size_t)b * a->steps + step]) memset(y, 0, (size_t)d * sizeof(xf_act));
        else memcpy(y, in + (size_t)b * d, (size_t)d * sizeof(xf_act));
        if (a->XF_ACT(logits))
            memcpy(a->XF_ACT(logits) + ((size_t)b * a->steps + step) * a->vocab, logits + (size_t)b * a->vocab,
                   (size_t)a->vocab * sizeof(xf_act));
    }
}

// The encoder once, the memory's K|V once per decoder layer, then one step
// per token through every layer, the final norm and the logits. The caches
// (one per layer, `steps` rows) and every activation are scratch from
// prepare; a step's rows are copied into y and logits, the outputs.
void XF_PART(generate)(xf_exec *ex, const xf_generate_args *a)
{
    const int d = a->heads * a->dk, B = a->batch, L = a->dec_layers;
    const size_t src_rows = (size_t)B * a->seq_s, row = 2 * (size_t)d;
    xf_forward_args enc = xf_forward_of_generate(a); // for the encoder stack
    enc.dtype = XF_ACT_DTYPE;
    const xf_rows src = xf_rows_of(ex, B, a->seq_s, a->src_pad);
    const xf_act *memory = XF_PART(encoder_stack)(ex, &enc, &src);
    xf_act *kv_compact = xf_act_buffer(ex, (size_t)src.n * row);
    xf_act *x = xf_act_buffer(ex, (size_t)B * d), *t[2] = {xf_act_buffer(ex, (size_t)B * d),
                                                            xf_act_buffer(ex, (size_t)B * d)};
    xf_act *normed = xf_act_buffer(ex, (size_t)B * d), *logits = xf_act_buffer(ex, (size_t)B * a->vocab);
    const xf_act *zero = xf_act_buffer(ex, (size_t)B * d); // the final norm's residual
    int32_t *ids = (int32_t *)xf_exec_buffer(ex, (size_t)B);
    const step_buffers sb = step_buffers_new(ex, B, d, a->d_ff);
    xf_act **self_kv = (xf_act **)xf_exec_buffer(ex, (size_t)L * sizeof(xf_act *) / sizeof(float) + 1);
    xf_act **cross_kv = (xf_act **)xf_exec_buffer(ex, (size_t)L * sizeof(xf_act *) / sizeof(float) + 1);
    for (int l = 0; l < L; l++) {
        self_kv[l] = xf_act_buffer(ex, (size_t)B * a->steps * row);
        cross_kv[l] = xf_act_buffer(ex, src_rows * row);
        // Projected for the real tokens only, then laid out as the padded
        // batch (zeros at padded rows), which a step reads with the mask.
        const xf_mha_weights *cw = &a->dec[l].cross_attn;
        XF_PART(linear)(ex, src.n, 2 * d, d, memory, cw->in_proj_w + (size_t)d * d, cw->in_proj_b + d, 0, kv_compact);
        XF_PART(rows_scatter)(&src, 2 * d, kv_compact, cross_kv[l]);
    }
    for (int step = 0; step < a->steps; step++) {
        step_input(ex, a, step, logits, ids, x);
        const xf_act *in = x;
        for (int l = 0; l < L; l++) {
            xf_act *out = t[l % 2];
            xf_decode_layer_args s = {.batch = B, .heads = a->heads, .dk = a->dk, .d_ff = a->d_ff,
                                      .seq_s = a->seq_s, .pos = step, .capacity = a->steps, .XF_ACT(x) = in,
                                      .XF_ACT(self_kv) = self_kv[l], .XF_ACT(cross_kv) = cross_kv[l],
                                      .src_pad = a->src_pad, .w = &a->dec[l], .XF_ACT(y) = out,
                                      .dtype = XF_ACT_DTYPE};
            decode_layer(ex, &s, &sb);
            in = out;
        }
        if (a->dec_norm.gamma) {
            XF_PART(add_norm)(ex, B, d, in, zero, &a->dec_norm, normed);
            in = normed;
        }
        xf_act *logits_out = a->XF_ACT(logits);
        if (logits_out) {
            xf_lm_head_args h = {.rows = B, .d_model = d, .vocab = a->vocab, .XF_ACT(x) = in,
                                 .XF_ACT(table) = XF_WEIGHT(ex, a->tgt_table, (size_t)a->vocab * d),
                                 .XF_ACT(logits) = logits, .dtype = XF_ACT_DTYPE};
            xf_exec_call(ex, XF_LM_HEAD, &h, sizeof h);
        }
        step_output(a, step, in, logits);
    }
}


void XF_PART(decode_layer)(xf_exec *ex, const xf_decode_layer_args *a)
{
    const step_buffers sb = step_buffers_new(ex, a->batch, a->heads * a->dk, a->d_ff);
    decode_layer(ex, a, &sb);
}
