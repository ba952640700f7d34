#include <math.h>

#include "../../kernels/half.h"
#include "inputs.h"

float *xf_own_uniform(xf_instance *in, xf_rng *r, size_t count, float lo, float hi)
{
    float *x = xf_instance_own(in, count * sizeof *x);
    if (x) xf_rng_fill(r, x, count, lo, hi);
    if (x && in->c.dtype == XF_BF16) // a bf16 model: every input and weight a bf16 value (docs/design.md, Precision)
        for (size_t i = 0; i < count; i++) x[i] = xf_round_bf16(x[i]);
    return x;
}

xf_bf16 *xf_own_bf16(xf_instance *in, float *x, size_t count)
{
    xf_bf16 *h = xf_instance_own(in, (count ? count : 1) * sizeof *h);
    if (h)
        for (size_t i = 0; i < count; i++) {
            h[i] = xf_bf16_from_f32(x[i]);
            x[i] = xf_bf16_to_f32(h[i]);
        }
    return h;
}

// "some" keeps a prefix of a length that differs per batch element;
// "all-but-one" keeps one key (not always the first, so causal rows before
// it are fully masked); "all" masks every key of batch element 0 and
// behaves as "some" for the others.
uint8_t *xf_make_pad(xf_instance *in, int batch, int seq, xf_pad pattern)
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

int32_t *xf_make_ids(xf_instance *in, xf_rng *r, size_t count, int vocab)
{
    int32_t *ids = xf_instance_own(in, count * sizeof *ids);
    if (ids)
        for (size_t i = 0; i < count; i++) ids[i] = (int32_t)(xf_rng_next(r) % (uint64_t)vocab);
    return ids;
}

// Embedding rows of standard deviation 1/sqrt(d), so E * sqrt(d) has unit
// scale like the positional encodings it is added to.
float *xf_make_table(xf_instance *in, xf_rng *r, int vocab, int d)
{
    float s = sqrtf(3.0f / (float)d);
    return xf_own_uniform(in, r, (size_t)vocab * d, -s, s);
}

// PyTorch's nn.Linear init: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias.
int xf_make_linear(xf_instance *in, xf_rng *r, int out, int inp, const float **w, const float **b)
{
    float s = 1.0f / sqrtf((float)inp);
    *w = xf_own_uniform(in, r, (size_t)out * inp, -s, s);
    *b = xf_own_uniform(in, r, (size_t)out, -s, s);
    return *w && *b ? 0 : -1;
}

// A trained LayerNorm is near the identity: gamma ~ 1, beta ~ 0.
int xf_make_norm(xf_instance *in, xf_rng *r, int d, xf_norm_weights *n)
{
    n->gamma = xf_own_uniform(in, r, d, 0.5f, 1.5f);
    n->beta = xf_own_uniform(in, r, d, -0.5f, 0.5f);
    return n->gamma && n->beta ? 0 : -1;
}

static int mha_weights(xf_instance *in, xf_rng *r, int d, xf_mha_weights *w)
{
    return xf_make_linear(in, r, 3 * d, d, &w->in_proj_w, &w->in_proj_b) |
           xf_make_linear(in, r, d, d, &w->out_proj_w, &w->out_proj_b);
}

int xf_make_ffn(xf_instance *in, xf_rng *r, int d, int d_ff, xf_ffn_weights *w)
{
    return xf_make_linear(in, r, d_ff, d, &w->w1, &w->b1) | xf_make_linear(in, r, d, d_ff, &w->w2, &w->b2);
}

int xf_make_encoder(xf_instance *in, xf_rng *r, int d, int d_ff, xf_encoder_weights *w)
{
    return mha_weights(in, r, d, &w->self_attn) | xf_make_ffn(in, r, d, d_ff, &w->ffn) |
           xf_make_norm(in, r, d, &w->norm1) | xf_make_norm(in, r, d, &w->norm2);
}

int xf_make_decoder(xf_instance *in, xf_rng *r, int d, int d_ff, xf_decoder_weights *w)
{
    return mha_weights(in, r, d, &w->self_attn) | mha_weights(in, r, d, &w->cross_attn) |
           xf_make_ffn(in, r, d, d_ff, &w->ffn) | xf_make_norm(in, r, d, &w->norm1) |
           xf_make_norm(in, r, d, &w->norm2) | xf_make_norm(in, r, d, &w->norm3);
}

int xf_make_model(xf_instance *in, xf_rng *r, const xf_case *c, xf_model *m)
{
    const int d = xf_case_d_model(c);
    xf_encoder_weights *enc = xf_instance_own(in, (size_t)(c->layers + 1) * sizeof *enc);
    xf_decoder_weights *dec = xf_instance_own(in, (size_t)(c->dec_layers + 1) * sizeof *dec);
    *m = (xf_model){.enc = enc, .dec = dec};
    if (!enc || !dec) return -1;
    m->src_ids = xf_make_ids(in, r, (size_t)c->batch * c->seq_k, c->vocab);
    m->tgt_ids = xf_make_ids(in, r, (size_t)c->batch * c->seq_q, c->vocab);
    m->src_table = xf_make_table(in, r, c->vocab, d);
    m->tgt_table = xf_make_table(in, r, c->vocab, d);
    if (!m->src_ids || !m->tgt_ids || !m->src_table || !m->tgt_table) return -1;
    for (int l = 0; l < c->layers; l++)
        if (xf_make_encoder(in, r, d, c->d_ff, &enc[l])) return -1;
    for (int l = 0; l < c->dec_layers; l++)
        if (xf_make_decoder(in, r, d, c->d_ff, &dec[l])) return -1;
    if (c->final_norm && (xf_make_norm(in, r, d, &m->enc_norm) || xf_make_norm(in, r, d, &m->dec_norm)))
        return -1;
    return 0;
}
