// Inputs for every stage, seeded and reproducible, with value ranges like
// those a trained Transformer sees; and the reference each is checked with.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/errmodel.h"
#include "case.h"
#include "rng.h"

static const char *const pad_names[XF_NPADS] = {"none", "some", "all-but-one", "all"};

const char *xf_pad_name(xf_pad p) { return pad_names[p]; }

int xf_pad_from_name(const char *name)
{
    for (int p = 0; p < XF_NPADS; p++)
        if (strcmp(name, pad_names[p]) == 0) return p;
    return -1;
}

void *xf_instance_own(xf_instance *in, size_t bytes)
{
    // aligned_alloc wants a whole number of alignments, and at least one.
    size_t size = bytes ? (bytes + 63) / 64 * 64 : 64;
    void *p = aligned_alloc(64, size);
    if (!p) return NULL;
    in->owned = realloc(in->owned, (size_t)(in->nowned + 1) * sizeof *in->owned);
    in->owned[in->nowned++] = p;
    return p;
}

static float *own_uniform(xf_instance *in, xf_rng *r, size_t count, float lo, float hi)
{
    float *x = xf_instance_own(in, count * sizeof *x);
    if (x) xf_rng_fill(r, x, count, lo, hi);
    return x;
}

// Key padding per batch element: "some" keeps a prefix of a length that
// differs per batch element; "all-but-one" keeps one key (not always the
// first, so causal rows before it are fully masked); "all" masks every key
// of batch element 0 and behaves as "some" for the others.
static uint8_t *make_pad(xf_instance *in, int batch, int seq, xf_pad pattern)
{
    if (pattern == XF_PAD_NONE) return NULL;
    uint8_t *pad = xf_instance_own(in, (size_t)batch * seq);
    if (!pad) return NULL;
    for (int b = 0; b < batch; b++) {
        uint8_t *row = pad + (size_t)b * seq;
        int keep = seq - (int)(((long)(b + 1) * seq) / (batch + 2));
        if (keep < 1) keep = 1;
        int only = (b * 7 + seq / 2) % seq;
        for (int j = 0; j < seq; j++) {
            if (pattern == XF_PAD_ALL_BUT_ONE) row[j] = j != only;
            else if (pattern == XF_PAD_ALL && b == 0) row[j] = 1;
            else row[j] = j >= keep;
        }
    }
    return pad;
}

int xf_instance_add_output(xf_instance *in, const char *name, size_t count)
{
    int i = in->nout++;
    in->out_name[i] = name;
    if (xf_guarded_alloc(&in->out[i], count) != 0) return -1;
    in->ref[i] = malloc(count * sizeof(double));
    in->bound[i] = malloc(count * sizeof(double));
    return in->ref[i] && in->bound[i] ? 0 : -1;
}

// PyTorch's nn.Linear init: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias.
static int linear_weights(xf_instance *in, xf_rng *r, int out, int inp, const float **w,
                          const float **b)
{
    float s = 1.0f / sqrtf((float)inp);
    *w = own_uniform(in, r, (size_t)out * inp, -s, s);
    *b = own_uniform(in, r, (size_t)out, -s, s);
    return *w && *b ? 0 : -1;
}

// A trained LayerNorm is near the identity: gamma ~ 1, beta ~ 0.
static int norm_weights(xf_instance *in, xf_rng *r, int d, xf_norm_weights *n)
{
    n->gamma = own_uniform(in, r, d, 0.5f, 1.5f);
    n->beta = own_uniform(in, r, d, -0.5f, 0.5f);
    return n->gamma && n->beta ? 0 : -1;
}

static int mha_weights(xf_instance *in, xf_rng *r, int d, xf_mha_weights *w)
{
    return linear_weights(in, r, 3 * d, d, &w->in_proj_w, &w->in_proj_b) |
           linear_weights(in, r, d, d, &w->out_proj_w, &w->out_proj_b);
}

static int ffn_weights(xf_instance *in, xf_rng *r, int d, int d_ff, xf_ffn_weights *w)
{
    return linear_weights(in, r, d_ff, d, &w->w1, &w->b1) |
           linear_weights(in, r, d, d_ff, &w->w2, &w->b2);
}

static int encoder_weights(xf_instance *in, xf_rng *r, int d, int d_ff, xf_encoder_weights *w)
{
    return mha_weights(in, r, d, &w->self_attn) | ffn_weights(in, r, d, d_ff, &w->ffn) |
           norm_weights(in, r, d, &w->norm1) | norm_weights(in, r, d, &w->norm2);
}

static int decoder_weights(xf_instance *in, xf_rng *r, int d, int d_ff, xf_decoder_weights *w)
{
    return mha_weights(in, r, d, &w->self_attn) | mha_weights(in, r, d, &w->cross_attn) |
           ffn_weights(in, r, d, d_ff, &w->ffn) | norm_weights(in, r, d, &w->norm1) |
           norm_weights(in, r, d, &w->norm2) | norm_weights(in, r, d, &w->norm3);
}

static int32_t *make_ids(xf_instance *in, xf_rng *r, size_t count, int vocab)
{
    int32_t *ids = xf_instance_own(in, count * sizeof *ids);
    if (ids)
        for (size_t i = 0; i < count; i++) ids[i] = (int32_t)(xf_rng_next(r) % (uint64_t)vocab);
    return ids;
}

// Embedding rows of standard deviation 1/sqrt(d), so E * sqrt(d) has unit
// scale like the positional encodings it is added to.
static float *make_table(xf_instance *in, xf_rng *r, int vocab, int d)
{
    float s = sqrtf(3.0f / (float)d);
    return own_uniform(in, r, (size_t)vocab * d, -s, s);
}

static int build_primitive(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    switch (c->stage) {
    case XF_EMBED: {
        xf_embed_args *a = &in->args.embed;
        *a = (xf_embed_args){.batch = c->batch, .seq = c->seq_q, .d_model = d, .vocab = c->vocab};
        a->ids = make_ids(in, r, (size_t)c->batch * c->seq_q, c->vocab);
        a->table = make_table(in, r, c->vocab, d);
        if (!a->ids || !a->table || xf_instance_add_output(in, "y", (size_t)c->batch * c->seq_q * d)) return -1;
        a->y = in->out[0].data;
        in->flops = xf_embed_flops(a), in->bytes = xf_embed_bytes(a);
        return 0;
    }
    case XF_LINEAR: {
        xf_linear_args *a = &in->args.linear;
        *a = (xf_linear_args){.m = c->batch * c->seq_q, .n = c->n ? c->n : 3 * d,
                              .k = c->k ? c->k : d, .relu = c->relu};
        a->x = own_uniform(in, r, (size_t)a->m * a->k, -1.0f, 1.0f);
        if (!a->x || linear_weights(in, r, a->n, a->k, &a->w, &a->b)) return -1;
        if (xf_instance_add_output(in, "y", (size_t)a->m * a->n)) return -1;
        a->y = in->out[0].data;
        in->flops = xf_linear_flops(a), in->bytes = xf_linear_bytes(a);
        return 0;
    }
    case XF_SOFTMAX: {
        xf_softmax_args *a = &in->args.softmax;
        *a = (xf_softmax_args){.batch = c->batch, .heads = c->heads, .seq_q = c->seq_q,
                               .seq_k = c->seq_k, .scale = 1.0f / sqrtf((float)c->dk),
                               .causal = c->causal};
        size_t count = (size_t)c->batch * c->heads * c->seq_q * c->seq_k;
        // Raw scores q.k of unit-scale q and k: spread like sqrt(dk).
        float spread = 2.0f * sqrtf((float)c->dk);
        a->x = own_uniform(in, r, count, -spread, spread);
        a->key_pad = make_pad(in, c->batch, c->seq_k, c->pad);
        if (!a->x || (c->pad != XF_PAD_NONE && !a->key_pad) || xf_instance_add_output(in, "y", count))
            return -1;
        a->y = in->out[0].data;
        in->flops = xf_softmax_flops(a), in->bytes = xf_softmax_bytes(a);
        return 0;
    }
    case XF_ATTENTION: {
        xf_attention_args *a = &in->args.attention;
        *a = (xf_attention_args){.batch = c->batch, .heads = c->heads, .dk = c->dk,
                                 .seq_q = c->seq_q, .seq_k = c->seq_k, .causal = c->causal,
                                 .ldo = d};
        // Q, K and V as a projection leaves them: one packed QKV buffer for
        // self-attention, Q apart from a packed KV for cross-attention, so
        // the row strides are never just heads*dk.
        if (c->seq_q == c->seq_k) {
            float *qkv = own_uniform(in, r, (size_t)c->batch * c->seq_q * 3 * d, -1.5f, 1.5f);
            if (!qkv) return -1;
            a->q = qkv, a->k = qkv + d, a->v = qkv + 2 * d;
            a->ldq = a->ldk = a->ldv = 3 * d;
        } else {
            float *q = own_uniform(in, r, (size_t)c->batch * c->seq_q * d, -1.5f, 1.5f);
            float *kv = own_uniform(in, r, (size_t)c->batch * c->seq_k * 2 * d, -1.5f, 1.5f);
            if (!q || !kv) return -1;
            a->q = q, a->k = kv, a->v = kv + d;
            a->ldq = d, a->ldk = a->ldv = 2 * d;
        }
        a->key_pad = make_pad(in, c->batch, c->seq_k, c->pad);
        if ((c->pad != XF_PAD_NONE && !a->key_pad) ||
            xf_instance_add_output(in, "out", (size_t)c->batch * c->seq_q * d))
            return -1;
        a->out = in->out[0].data;
        in->flops = xf_attention_flops(a), in->bytes = xf_attention_bytes(a);
        in->useful_flops = xf_attention_useful_flops(a);
        return 0;
    }
    case XF_ADD_LAYERNORM: {
        xf_add_layernorm_args *a = &in->args.add_layernorm;
        *a = (xf_add_layernorm_args){.rows = c->batch * c->seq_q, .d = d};
        size_t count = (size_t)a->rows * d;
        xf_norm_weights n;
        a->x = own_uniform(in, r, count, -1.0f, 1.0f);
        a->r = own_uniform(in, r, count, -1.0f, 1.0f);
        if (!a->x || !a->r || norm_weights(in, r, d, &n) || xf_instance_add_output(in, "y", count)) return -1;
        a->gamma = n.gamma, a->beta = n.beta, a->y = in->out[0].data;
        in->flops = xf_add_layernorm_flops(a), in->bytes = xf_add_layernorm_bytes(a);
        return 0;
    }
    default: return -1;
    }
}

static int build_compound(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    in->model_bound = 1;
    switch (c->stage) {
    case XF_FFN: {
        xf_ffn_args *a = &in->args.ffn;
        xf_ffn_weights *w = xf_instance_own(in, sizeof *w);
        *a = (xf_ffn_args){.m = c->batch * c->seq_q, .d_model = d, .d_ff = c->d_ff, .w = w};
        a->x = own_uniform(in, r, (size_t)a->m * d, -1.0f, 1.0f);
        if (!w || !a->x || ffn_weights(in, r, d, c->d_ff, w) ||
            xf_instance_add_output(in, "y", (size_t)a->m * d))
            return -1;
        a->y = in->out[0].data;
        in->flops = xf_ffn_flops(a), in->bytes = xf_ffn_bytes(a);
        return 0;
    }
    case XF_ENCODER_LAYER: {
        xf_encoder_layer_args *a = &in->args.encoder_layer;
        xf_encoder_weights *w = xf_instance_own(in, sizeof *w);
        *a = (xf_encoder_layer_args){.batch = c->batch, .seq = c->seq_k, .heads = c->heads,
                                     .dk = c->dk, .d_ff = c->d_ff, .w = w};
        size_t count = (size_t)c->batch * c->seq_k * d;
        a->x = own_uniform(in, r, count, -1.0f, 1.0f);
        a->src_pad = make_pad(in, c->batch, c->seq_k, c->pad);
        if (!w || !a->x || encoder_weights(in, r, d, c->d_ff, w) || xf_instance_add_output(in, "y", count))
            return -1;
        a->y = in->out[0].data;
        in->flops = xf_encoder_layer_flops(a), in->bytes = xf_encoder_layer_bytes(a);
        in->useful_flops = xf_encoder_layer_useful_flops(a);
        return 0;
    }
    case XF_DECODER_LAYER: {
        xf_decoder_layer_args *a = &in->args.decoder_layer;
        xf_decoder_weights *w = xf_instance_own(in, sizeof *w);
        *a = (xf_decoder_layer_args){.batch = c->batch, .seq_t = c->seq_q, .seq_s = c->seq_k,
                                     .heads = c->heads, .dk = c->dk, .d_ff = c->d_ff, .w = w};
        size_t count = (size_t)c->batch * c->seq_q * d;
        a->x = own_uniform(in, r, count, -1.0f, 1.0f);
        a->memory = own_uniform(in, r, (size_t)c->batch * c->seq_k * d, -1.0f, 1.0f);
        a->tgt_pad = make_pad(in, c->batch, c->seq_q, c->pad);
        a->src_pad = make_pad(in, c->batch, c->seq_k, c->pad);
        if (!w || !a->x || !a->memory || decoder_weights(in, r, d, c->d_ff, w) ||
            xf_instance_add_output(in, "y", count))
            return -1;
        a->y = in->out[0].data;
        in->flops = xf_decoder_layer_flops(a), in->bytes = xf_decoder_layer_bytes(a);
        in->useful_flops = xf_decoder_layer_useful_flops(a);
        return 0;
    }
    case XF_FORWARD: {
        xf_forward_args *a = &in->args.forward;
        xf_encoder_weights *enc = xf_instance_own(in, (size_t)(c->layers + 1) * sizeof *enc);
        xf_decoder_weights *dec = xf_instance_own(in, (size_t)(c->dec_layers + 1) * sizeof *dec);
        if (!enc || !dec) return -1;
        *a = (xf_forward_args){.batch = c->batch, .seq_s = c->seq_k, .seq_t = c->seq_q,
                               .heads = c->heads, .dk = c->dk, .d_ff = c->d_ff,
                               .enc_layers = c->layers, .dec_layers = c->dec_layers, .vocab = c->vocab,
                               .enc = enc, .dec = dec};
        a->src_ids = make_ids(in, r, (size_t)c->batch * c->seq_k, c->vocab);
        a->tgt_ids = make_ids(in, r, (size_t)c->batch * c->seq_q, c->vocab);
        a->src_table = make_table(in, r, c->vocab, d);
        a->tgt_table = make_table(in, r, c->vocab, d);
        if (!a->src_ids || !a->tgt_ids || !a->src_table || !a->tgt_table) return -1;
        for (int l = 0; l < c->layers; l++)
            if (encoder_weights(in, r, d, c->d_ff, &enc[l])) return -1;
        for (int l = 0; l < c->dec_layers; l++)
            if (decoder_weights(in, r, d, c->d_ff, &dec[l])) return -1;
        if (c->final_norm &&
            (norm_weights(in, r, d, &a->enc_norm) || norm_weights(in, r, d, &a->dec_norm)))
            return -1;
        a->src_pad = make_pad(in, c->batch, c->seq_k, c->pad);
        a->tgt_pad = make_pad(in, c->batch, c->seq_q, c->pad);
        if (xf_instance_add_output(in, "memory", (size_t)c->batch * c->seq_k * d) ||
            xf_instance_add_output(in, "y", (size_t)c->batch * c->seq_q * d))
            return -1;
        a->memory = in->out[0].data, a->y = in->out[1].data;
        in->flops = xf_forward_flops(a), in->bytes = xf_forward_bytes(a);
        in->useful_flops = xf_forward_useful_flops(a);
        return 0;
    }
    default: return -1;
    }
}

int xf_instance_build(xf_instance *in, const xf_case *c)
{
    memset(in, 0, sizeof *in);
    in->c = *c;
    in->bound_ulp = -1.0;
    in->useful_flops = -1.0; // set by the stages with masked work
    xf_rng r = {c->seed};
    int rc = c->stage < XF_FIRST_COMPOUND ? build_primitive(in, &r) : build_compound(in, &r);
    if (in->useful_flops < 0) in->useful_flops = in->flops;
    return rc;
}

// Compound stages: the reference's error-model variance becomes the bound
// XF_MODEL_SIGMAS * sigma (errmodel.h). The floor covers elements whose
// modelled variance is 0 (a sum that is exactly representable).
static void var_to_bound(double *b, size_t count)
{
    for (size_t i = 0; i < count; i++) b[i] = XF_MODEL_SIGMAS * sqrt(b[i]) + 0x1p-126;
}

static void reference_compound(xf_instance *in, double ulp)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    switch (c->stage) {
    case XF_FFN: {
        const xf_ffn_args *a = &in->args.ffn;
        size_t count = (size_t)a->m * d;
        double *x = xf_widen(a->x, count), *zero = calloc(count, sizeof *zero);
        xf_ref_ffn_d(a, x, zero, in->ref[0], in->bound[0]);
        free(x);
        free(zero);
        break;
    }
    case XF_ENCODER_LAYER: {
        const xf_encoder_layer_args *a = &in->args.encoder_layer;
        size_t count = (size_t)a->batch * a->seq * d;
        double *x = xf_widen(a->x, count), *zero = calloc(count, sizeof *zero);
        xf_ref_encoder_layer_d(a, x, zero, ulp, in->ref[0], in->bound[0]);
        free(x);
        free(zero);
        break;
    }
    case XF_DECODER_LAYER: {
        const xf_decoder_layer_args *a = &in->args.decoder_layer;
        size_t count = (size_t)a->batch * a->seq_t * d, mcount = (size_t)a->batch * a->seq_s * d;
        double *x = xf_widen(a->x, count), *m = xf_widen(a->memory, mcount);
        double *zero = calloc(count > mcount ? count : mcount, sizeof *zero);
        xf_ref_decoder_layer_d(a, x, zero, m, zero, ulp, in->ref[0], in->bound[0]);
        free(x);
        free(m);
        free(zero);
        break;
    }
    case XF_FORWARD:
        xf_ref_forward_d(&in->args.forward, ulp, in->ref[0], in->bound[0], in->ref[1],
                         in->bound[1]);
        break;
    default: break;
    }
    for (int o = 0; o < in->nout; o++) var_to_bound(in->bound[o], in->out[o].count);
}

void xf_instance_reference(xf_instance *in, double ulp)
{
    if (in->bound_ulp == ulp) return;
    in->bound_ulp = ulp;
    switch (in->c.stage) {
    case XF_EMBED: xf_ref_embed(&in->args.embed, ulp, in->ref[0], in->bound[0], NULL); break;
    case XF_LINEAR: xf_ref_linear(&in->args.linear, in->ref[0], in->bound[0]); break;
    case XF_SOFTMAX: xf_ref_softmax(&in->args.softmax, ulp, in->ref[0], in->bound[0]); break;
    case XF_ATTENTION: xf_ref_attention(&in->args.attention, ulp, in->ref[0], in->bound[0]); break;
    case XF_ADD_LAYERNORM:
        xf_ref_add_layernorm(&in->args.add_layernorm, ulp, in->ref[0], in->bound[0]);
        break;
    default: reference_compound(in, ulp); break;
    }
}

void xf_instance_free(xf_instance *in)
{
    for (int o = 0; o < in->nout; o++) {
        xf_guarded_free(&in->out[o]);
        free(in->ref[o]);
        free(in->bound[o]);
    }
    for (int i = 0; i < in->nowned; i++) free(in->owned[i]);
    free(in->owned);
    memset(in, 0, sizeof *in);
}
