// forward: embed + encoder layers + final norm -> memory; embed + decoder
// layers + final norm -> y (kernels/forward.h).
#include "compound.h"
#include "inputs.h"

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_forward_args *a = &in->args.forward;
    xf_model m;
    if (xf_make_model(in, r, c, &m)) return -1;
    *a = (xf_forward_args){.batch = c->batch, .seq_s = c->seq_k, .seq_t = c->seq_q, .heads = c->heads,
                           .dk = c->dk, .d_ff = c->d_ff, .enc_layers = c->layers, .dec_layers = c->dec_layers,
                           .vocab = c->vocab, .src_ids = m.src_ids, .tgt_ids = m.tgt_ids,
                           .src_table = m.src_table, .tgt_table = m.tgt_table, .enc = m.enc, .dec = m.dec,
                           .enc_norm = m.enc_norm, .dec_norm = m.dec_norm};
    a->src_pad = xf_make_pad(in, c->batch, c->seq_k, c->pad);
    a->tgt_pad = xf_make_pad(in, c->batch, c->seq_q, c->pad);
    if (xf_instance_add_output(in, "memory", (size_t)c->batch * c->seq_k * d) ||
        xf_instance_add_output(in, "y", (size_t)c->batch * c->seq_q * d))
        return -1;
    a->memory = in->out[0].data, a->y = in->out[1].data;
    if (c->dtype == XF_BF16) // weights and tables already bf16 values (xf_own_uniform)
        a->dtype = XF_BF16, a->memory16 = in->out[0].data16, a->y16 = in->out[1].data16;
    in->flops = xf_forward_flops(a), in->bytes = xf_forward_bytes(a);
    in->useful_flops = xf_forward_useful_flops(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    xf_ref_forward_d(&in->args.forward, ulp, in->ref[0], in->bound[0], in->ref[1], in->bound[1]);
}

// Every layer's weights, both embedding tables, both outputs; activations
// of the widest layer (the reference keeps one layer's at a time).
static double bytes_needed(const xf_case *c)
{
    double d = xf_case_d_model(c), b = c->batch, sq = c->seq_q, sk = c->seq_k;
    double enc = xf_encoder_weight_floats(d, c->d_ff), dec = enc + 4 * d * d + 6 * d;
    return XF_F32_BYTES * (c->layers * enc + c->dec_layers * dec + 2.0 * c->vocab * d) +
           (XF_OUT_BYTES + 16) * b * (sq + sk) * d + xf_layer_activation_bytes(b * (sq + sk), b * sk, d, c->d_ff);
}

static void describe(const xf_case *c, char *buf, size_t size)
{
    xf_describe_layers(c, buf, size);
    xf_append(buf, size, " layers=%d+%d final_norm=%d pad=%s", c->layers, c->dec_layers, c->final_norm,
              xf_pad_name(c->pad));
}

static void options(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, " --layers %d --vocab %d --final-norm %d", c->layers, c->vocab, c->final_norm);
    xf_compound_options(c, buf, size);
}

static int calls(xf_stage p) { return p == XF_EMBED || xf_layer_calls(p); }

// The small models, one of Transformer-base width with 2 + 2 layers; in
// full also 0 + 0 and 1 + 1 layers (an empty stack must still embed and
// norm).
static void grid(xf_grid *g, int full)
{
    xf_grid_compound_models(g, full);
    xf_grid_compound_wide(g, 2);
    if (full)
        for (int layers = 0; layers < 2; layers++) xf_grid_compound_layers(g, layers);
}

const xf_stage_desc xf_stage_forward = {.csv_columns = XF_CSV_LAYERS, .build = build, .reference = reference, .bytes_needed = bytes_needed,
                                        .describe = describe, .options = options, .grid = grid,
                                        .calls = calls};
