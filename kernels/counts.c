// FLOP and byte counts of the compound stages: the sums of the primitive
// stage calls they are made of. Dense FLOPs count every row and every
// (query, key) pair of the padded batch; useful FLOPs only what must be
// done: the rows of real tokens in linears, FFN and Add & Norm, and the
// visible (query, key) pairs of real queries in attention (the
// compositions skip the rest: variants/compose/compose.c).
#include <stdlib.h>

#include "add_layernorm.h"
#include "attention.h"
#include "decode.h"
#include "embed.h"
#include "lm_head.h"
#include "linear.h"

// dt: the dtype the composition stores activations and weights in (bytes
// count its element size).
typedef struct {
    double flops, bytes, useful;
    xf_dtype dt;
} cost;

// Per batch element, the keys visible to query i are the unpadded keys
// j <= i (causal) or all unpadded keys: a running count of unpadded keys
// gives each row's count in one pass over the keys. Queries at padded
// positions (q_pad) are left out: the compositions do not compute them.
static double real_query_pairs(const uint8_t *q_pad, const uint8_t *key_pad, int batch, int seq_q, int seq_k,
                               int causal)
{
    double pairs = 0.0;
    for (int b = 0; b < batch; b++) {
        const uint8_t *pad = key_pad ? key_pad + (size_t)b * seq_k : NULL;
        const uint8_t *qp = q_pad ? q_pad + (size_t)b * seq_q : NULL;
        long open = 0; // unpadded keys seen so far
        if (!causal)
            for (int j = 0; j < seq_k; j++) open += !pad || !pad[j];
        for (int i = 0; i < seq_q; i++) {
            if (causal && i < seq_k) open += !pad || !pad[i];
            if (!qp || !qp[i]) pairs += (double)open;
        }
    }
    return pairs;
}

double xf_visible_pairs(const uint8_t *key_pad, int batch, int seq_q, int seq_k, int causal)
{
    return real_query_pairs(NULL, key_pad, batch, seq_q, seq_k, causal);
}

double xf_attention_useful_flops(const xf_attention_args *a)
{
    return 4.0 * a->heads * a->dk * xf_visible_pairs(a->key_pad, a->batch, a->seq_q, a->seq_k, a->causal);
}

// Rows of real tokens of a padded batch (batch,seq).
static int real_rows(const uint8_t *pad, int batch, int seq)
{
    int n = 0;
    for (int i = 0; i < batch * seq; i++) n += !pad || !pad[i];
    return n;
}

// m rows, `real` of them real.
static void add_linear_rows(cost *c, int m, int real, int n, int k)
{
    xf_linear_args l = {.m = m, .n = n, .k = k, .b = (const float *)1, .dtype = c->dt};
    c->flops += xf_linear_flops(&l);
    c->bytes += xf_linear_bytes(&l);
    l.m = real;
    c->useful += xf_linear_flops(&l);
}

static void add_linear(cost *c, int m, int n, int k) { add_linear_rows(c, m, m, n, k); }

// Useful: the visible pairs of real queries only (q_pad: the queries'
// padding, NULL if none).
static void add_attention_rows(cost *c, int batch, int heads, int dk, int seq_q, int seq_k, const uint8_t *q_pad,
                               const uint8_t *key_pad, int causal)
{
    xf_attention_args at = {.batch = batch, .heads = heads, .dk = dk, .seq_q = seq_q,
                            .seq_k = seq_k, .key_pad = key_pad, .causal = causal, .dtype = c->dt};
    c->flops += xf_attention_flops(&at);
    c->bytes += xf_attention_bytes(&at);
    c->useful += 4.0 * heads * dk * real_query_pairs(q_pad, key_pad, batch, seq_q, seq_k, causal);
}

static void add_attention(cost *c, int batch, int heads, int dk, int seq_q, int seq_k,
                          const uint8_t *key_pad, int causal)
{
    add_attention_rows(c, batch, heads, dk, seq_q, seq_k, NULL, key_pad, causal);
}

static void add_norm_rows(cost *c, int rows, int real, int d)
{
    xf_add_layernorm_args n = {.rows = rows, .d = d, .dtype = c->dt};
    c->flops += xf_add_layernorm_flops(&n);
    c->bytes += xf_add_layernorm_bytes(&n);
    n.rows = real;
    c->useful += xf_add_layernorm_flops(&n);
}

static void add_norm(cost *c, int rows, int d) { add_norm_rows(c, rows, rows, d); }

static void add_ffn_rows(cost *c, int m, int real, int d, int d_ff)
{
    add_linear_rows(c, m, real, d_ff, d);
    add_linear_rows(c, m, real, d, d_ff);
}

static void add_ffn(cost *c, int m, int d, int d_ff) { add_ffn_rows(c, m, m, d, d_ff); }

static cost encoder_cost(int batch, int seq, int heads, int dk, int d_ff, const uint8_t *src_pad, xf_dtype dt)
{
    cost c = {0, 0, 0, dt};
    const int d = heads * dk, rows = batch * seq, real = real_rows(src_pad, batch, seq);
    add_linear_rows(&c, rows, real, 3 * d, d);
    add_attention_rows(&c, batch, heads, dk, seq, seq, src_pad, src_pad, 0);
    add_linear_rows(&c, rows, real, d, d);
    add_norm_rows(&c, rows, real, d);
    add_ffn_rows(&c, rows, real, d, d_ff);
    add_norm_rows(&c, rows, real, d);
    return c;
}

static cost decoder_cost(int batch, int seq_t, int seq_s, int heads, int dk, int d_ff,
                         const uint8_t *tgt_pad, const uint8_t *src_pad, xf_dtype dt)
{
    cost c = {0, 0, 0, dt};
    const int d = heads * dk, rows = batch * seq_t, real = real_rows(tgt_pad, batch, seq_t);
    add_linear_rows(&c, rows, real, 3 * d, d);
    add_attention_rows(&c, batch, heads, dk, seq_t, seq_t, tgt_pad, tgt_pad, 1);
    add_linear_rows(&c, rows, real, d, d);
    add_norm_rows(&c, rows, real, d);
    add_linear_rows(&c, rows, real, d, d);
    add_linear_rows(&c, batch * seq_s, real_rows(src_pad, batch, seq_s), 2 * d, d);
    add_attention_rows(&c, batch, heads, dk, seq_t, seq_s, tgt_pad, src_pad, 0);
    add_linear_rows(&c, rows, real, d, d);
    add_norm_rows(&c, rows, real, d);
    add_ffn_rows(&c, rows, real, d, d_ff);
    add_norm_rows(&c, rows, real, d);
    return c;
}

double xf_embed_bytes(const xf_embed_args *a)
{
    const size_t tokens = (size_t)a->batch * a->seq;
    size_t rows = tokens;
    unsigned char *seen = a->ids && a->vocab > 0 ? calloc((size_t)a->vocab, 1) : NULL;
    if (seen) {
        rows = 0;
        for (size_t t = 0; t < tokens; t++)
            if (!seen[a->ids[t]]) seen[a->ids[t]] = 1, rows++;
        free(seen);
    }
    return 4.0 * (double)tokens + (double)xf_dtype_size(a->dtype) * (double)(rows + tokens) * a->d_model;
}

static cost forward_cost(const xf_forward_args *a)
{
    const int d = a->heads * a->dk;
    cost c = {0, 0, 0, a->dtype};
    xf_embed_args es = {.batch = a->batch, .seq = a->seq_s, .d_model = d, .dtype = a->dtype};
    xf_embed_args et = {.batch = a->batch, .seq = a->seq_t, .d_model = d, .dtype = a->dtype};
    if (a->src_ids) c.flops += xf_embed_flops(&es), c.useful += xf_embed_flops(&es), c.bytes += xf_embed_bytes(&es);
    if (a->tgt_ids) c.flops += xf_embed_flops(&et), c.useful += xf_embed_flops(&et), c.bytes += xf_embed_bytes(&et);
    cost e = encoder_cost(a->batch, a->seq_s, a->heads, a->dk, a->d_ff, a->src_pad, a->dtype);
    cost dd = decoder_cost(a->batch, a->seq_t, a->seq_s, a->heads, a->dk, a->d_ff, a->tgt_pad, a->src_pad, a->dtype);
    c.flops += a->enc_layers * e.flops + a->dec_layers * dd.flops;
    c.useful += a->enc_layers * e.useful + a->dec_layers * dd.useful;
    c.bytes += a->enc_layers * e.bytes + a->dec_layers * dd.bytes;
    if (a->enc_norm.gamma) add_norm_rows(&c, a->batch * a->seq_s, real_rows(a->src_pad, a->batch, a->seq_s), d);
    if (a->dec_norm.gamma) add_norm_rows(&c, a->batch * a->seq_t, real_rows(a->tgt_pad, a->batch, a->seq_t), d);
    return c;
}

double xf_ffn_flops(const xf_ffn_args *a)
{
    cost c = {0, 0, 0, a->dtype};
    add_ffn(&c, a->m, a->d_model, a->d_ff);
    return c.flops;
}

double xf_ffn_bytes(const xf_ffn_args *a)
{
    cost c = {0, 0, 0, a->dtype};
    add_ffn(&c, a->m, a->d_model, a->d_ff);
    return c.bytes;
}

static cost enc(const xf_encoder_layer_args *a)
{
    return encoder_cost(a->batch, a->seq, a->heads, a->dk, a->d_ff, a->src_pad, a->dtype);
}

static cost dec(const xf_decoder_layer_args *a)
{
    return decoder_cost(a->batch, a->seq_t, a->seq_s, a->heads, a->dk, a->d_ff, a->tgt_pad, a->src_pad, a->dtype);
}

double xf_encoder_layer_flops(const xf_encoder_layer_args *a) { return enc(a).flops; }
double xf_encoder_layer_bytes(const xf_encoder_layer_args *a) { return enc(a).bytes; }
double xf_encoder_layer_useful_flops(const xf_encoder_layer_args *a) { return enc(a).useful; }
double xf_decoder_layer_flops(const xf_decoder_layer_args *a) { return dec(a).flops; }
double xf_decoder_layer_bytes(const xf_decoder_layer_args *a) { return dec(a).bytes; }
double xf_decoder_layer_useful_flops(const xf_decoder_layer_args *a) { return dec(a).useful; }
double xf_forward_flops(const xf_forward_args *a) { return forward_cost(a).flops; }
double xf_forward_bytes(const xf_forward_args *a) { return forward_cost(a).bytes; }
double xf_forward_useful_flops(const xf_forward_args *a) { return forward_cost(a).useful; }

// One decode step of one layer: the decoder layer's calls at one query row
// per sequence, the self-attention over pos + 1 cache rows, no cross K|V
// projection (done once per sequence), plus the appended cache row.
static cost decode_cost(int batch, int heads, int dk, int d_ff, int pos, int seq_s, const uint8_t *src_pad,
                        xf_dtype dt)
{
    cost c = {0, 0, 0, dt};
    const int d = heads * dk;
    add_linear(&c, batch, 3 * d, d);
    c.bytes += (double)xf_dtype_size(dt) * batch * 2 * d;
    add_attention(&c, batch, heads, dk, 1, pos + 1, NULL, 0);
    add_linear(&c, batch, d, d);
    add_norm(&c, batch, d);
    add_linear(&c, batch, d, d);
    add_attention(&c, batch, heads, dk, 1, seq_s, src_pad, 0);
    add_linear(&c, batch, d, d);
    add_norm(&c, batch, d);
    add_ffn(&c, batch, d, d_ff);
    add_norm(&c, batch, d);
    return c;
}

static cost generate_cost(const xf_generate_args *a)
{
    const int d = a->heads * a->dk;
    xf_forward_args enc = xf_forward_of_generate(a); // the encoder's part: no target, no decoder
    enc.seq_t = 0, enc.dec_layers = 0, enc.tgt_ids = NULL, enc.tgt_pad = NULL, enc.dec_norm = (xf_norm_weights){0};
    cost c = forward_cost(&enc);
    for (int l = 0; l < a->dec_layers; l++)
        add_linear_rows(&c, a->batch * a->seq_s, real_rows(a->src_pad, a->batch, a->seq_s), 2 * d, d);
    xf_embed_args e = {.batch = a->batch, .seq = 1, .d_model = d, .dtype = a->dtype};
    xf_lm_head_args h = {.rows = a->batch, .d_model = d, .vocab = a->vocab, .dtype = a->dtype};
    const double embed = a->tgt_ids ? 1.0 : 0.0, head = a->logits ? 1.0 : 0.0;
    for (int t = 0; t < a->steps; t++) {
        cost s = decode_cost(a->batch, a->heads, a->dk, a->d_ff, t, a->seq_s, a->src_pad, a->dtype);
        c.flops += a->dec_layers * s.flops + embed * xf_embed_flops(&e) + head * xf_lm_head_flops(&h);
        c.useful += a->dec_layers * s.useful + embed * xf_embed_flops(&e) + head * xf_lm_head_flops(&h);
        c.bytes += a->dec_layers * s.bytes + embed * xf_embed_bytes(&e) + head * xf_lm_head_bytes(&h);
        if (a->dec_norm.gamma) add_norm(&c, a->batch, d);
    }
    return c;
}

static cost step(const xf_decode_layer_args *a)
{
    return decode_cost(a->batch, a->heads, a->dk, a->d_ff, a->pos, a->seq_s, a->src_pad, a->dtype);
}

double xf_decode_layer_flops(const xf_decode_layer_args *a) { return step(a).flops; }
double xf_decode_layer_bytes(const xf_decode_layer_args *a) { return step(a).bytes; }
double xf_decode_layer_useful_flops(const xf_decode_layer_args *a) { return step(a).useful; }
double xf_generate_flops(const xf_generate_args *a) { return generate_cost(a).flops; }
double xf_generate_bytes(const xf_generate_args *a) { return generate_cost(a).bytes; }
double xf_generate_useful_flops(const xf_generate_args *a) { return generate_cost(a).useful; }
