// FLOP and byte counts of the compound stages: the sums of the primitive
// stage calls they are made of (dense FLOPs: masked attention work counts).
#include "add_layernorm.h"
#include "attention.h"
#include "forward.h"
#include "linear.h"

typedef struct {
    double flops, bytes;
} cost;

static void add_linear(cost *c, int m, int n, int k)
{
    xf_linear_args l = {.m = m, .n = n, .k = k, .b = (const float *)1};
    c->flops += xf_linear_flops(&l);
    c->bytes += xf_linear_bytes(&l);
}

static void add_attention(cost *c, int batch, int heads, int dk, int seq_q, int seq_k)
{
    xf_attention_args at = {.batch = batch, .heads = heads, .dk = dk, .seq_q = seq_q,
                            .seq_k = seq_k};
    c->flops += xf_attention_flops(&at);
    c->bytes += xf_attention_bytes(&at);
}

static void add_norm(cost *c, int rows, int d)
{
    xf_add_layernorm_args n = {.rows = rows, .d = d};
    c->flops += xf_add_layernorm_flops(&n);
    c->bytes += xf_add_layernorm_bytes(&n);
}

static void add_ffn(cost *c, int m, int d, int d_ff)
{
    add_linear(c, m, d_ff, d);
    add_linear(c, m, d, d_ff);
}

static cost encoder_cost(int batch, int seq, int heads, int dk, int d_ff)
{
    cost c = {0, 0};
    const int d = heads * dk, rows = batch * seq;
    add_linear(&c, rows, 3 * d, d);
    add_attention(&c, batch, heads, dk, seq, seq);
    add_linear(&c, rows, d, d);
    add_norm(&c, rows, d);
    add_ffn(&c, rows, d, d_ff);
    add_norm(&c, rows, d);
    return c;
}

static cost decoder_cost(int batch, int seq_t, int seq_s, int heads, int dk, int d_ff)
{
    cost c = {0, 0};
    const int d = heads * dk, rows = batch * seq_t;
    add_linear(&c, rows, 3 * d, d);
    add_attention(&c, batch, heads, dk, seq_t, seq_t);
    add_linear(&c, rows, d, d);
    add_norm(&c, rows, d);
    add_linear(&c, rows, d, d);
    add_linear(&c, batch * seq_s, 2 * d, d);
    add_attention(&c, batch, heads, dk, seq_t, seq_s);
    add_linear(&c, rows, d, d);
    add_norm(&c, rows, d);
    add_ffn(&c, rows, d, d_ff);
    add_norm(&c, rows, d);
    return c;
}

static cost forward_cost(const xf_forward_args *a)
{
    const int d = a->heads * a->dk;
    cost c = {0, 0};
    xf_embed_args es = {.batch = a->batch, .seq = a->seq_s, .d_model = d};
    xf_embed_args et = {.batch = a->batch, .seq = a->seq_t, .d_model = d};
    if (a->src_ids) c.flops += xf_embed_flops(&es), c.bytes += xf_embed_bytes(&es);
    if (a->tgt_ids) c.flops += xf_embed_flops(&et), c.bytes += xf_embed_bytes(&et);
    cost e = encoder_cost(a->batch, a->seq_s, a->heads, a->dk, a->d_ff);
    cost dd = decoder_cost(a->batch, a->seq_t, a->seq_s, a->heads, a->dk, a->d_ff);
    c.flops += a->enc_layers * e.flops + a->dec_layers * dd.flops;
    c.bytes += a->enc_layers * e.bytes + a->dec_layers * dd.bytes;
    if (a->enc_norm.gamma) add_norm(&c, a->batch * a->seq_s, d);
    if (a->dec_norm.gamma) add_norm(&c, a->batch * a->seq_t, d);
    return c;
}

double xf_ffn_flops(const xf_ffn_args *a)
{
    cost c = {0, 0};
    add_ffn(&c, a->m, a->d_model, a->d_ff);
    return c.flops;
}

double xf_ffn_bytes(const xf_ffn_args *a)
{
    cost c = {0, 0};
    add_ffn(&c, a->m, a->d_model, a->d_ff);
    return c.bytes;
}

double xf_encoder_layer_flops(const xf_encoder_layer_args *a)
{
    return encoder_cost(a->batch, a->seq, a->heads, a->dk, a->d_ff).flops;
}

double xf_encoder_layer_bytes(const xf_encoder_layer_args *a)
{
    return encoder_cost(a->batch, a->seq, a->heads, a->dk, a->d_ff).bytes;
}

double xf_decoder_layer_flops(const xf_decoder_layer_args *a)
{
    return decoder_cost(a->batch, a->seq_t, a->seq_s, a->heads, a->dk, a->d_ff).flops;
}

double xf_decoder_layer_bytes(const xf_decoder_layer_args *a)
{
    return decoder_cost(a->batch, a->seq_t, a->seq_s, a->heads, a->dk, a->d_ff).bytes;
}

double xf_forward_flops(const xf_forward_args *a) { return forward_cost(a).flops; }
double xf_forward_bytes(const xf_forward_args *a) { return forward_cost(a).bytes; }
