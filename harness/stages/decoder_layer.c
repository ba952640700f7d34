// decoder_layer: x = AN(x + SelfAttn(x, causal + tgt_pad));
// x = AN(x + CrossAttn(x, memory, src_pad)); y = AN(x + FFN(x)) (kernels/layers.h).
#include <stdlib.h>

#include "compound.h"
#include "inputs.h"

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_decoder_layer_args *a = &in->args.decoder_layer;
    xf_decoder_weights *w = xf_instance_own(in, sizeof *w);
    *a = (xf_decoder_layer_args){.batch = c->batch, .seq_t = c->seq_q, .seq_s = c->seq_k, .heads = c->heads,
                                 .dk = c->dk, .d_ff = c->d_ff, .w = w};
    size_t count = (size_t)c->batch * c->seq_q * d;
    a->x = xf_own_uniform(in, r, count, -1.0f, 1.0f);
    a->memory = xf_own_uniform(in, r, (size_t)c->batch * c->seq_k * d, -1.0f, 1.0f);
    a->tgt_pad = xf_make_pad(in, c->batch, c->seq_q, c->pad);
    a->src_pad = xf_make_pad(in, c->batch, c->seq_k, c->pad);
    if (!w || !a->x || !a->memory || xf_make_decoder(in, r, d, c->d_ff, w) ||
        xf_instance_add_output(in, "y", count))
        return -1;
    a->y = in->out[0].data;
    if (c->dtype == XF_BF16) { // weights already bf16 values (xf_own_uniform); bf16 views of x, memory, y
        a->dtype = XF_BF16, a->y16 = in->out[0].data16;
        a->x16 = xf_own_bf16(in, (float *)a->x, count);
        a->memory16 = xf_own_bf16(in, (float *)a->memory, (size_t)c->batch * c->seq_k * d);
        if (!a->x16 || !a->memory16) return -1;
    }
    in->flops = xf_decoder_layer_flops(a), in->bytes = xf_decoder_layer_bytes(a);
    in->useful_flops = xf_decoder_layer_useful_flops(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    const xf_decoder_layer_args *a = &in->args.decoder_layer;
    const size_t d = (size_t)a->heads * a->dk;
    size_t count = (size_t)a->batch * a->seq_t * d, mcount = (size_t)a->batch * a->seq_s * d;
    double *x = xf_widen(a->x, count), *m = xf_widen(a->memory, mcount);
    double *zero = calloc(count > mcount ? count : mcount, sizeof *zero);
    xf_ref_decoder_layer_d(a, x, zero, m, zero, ulp, in->ref[0], in->bound[0]);
    free(x);
    free(m);
    free(zero);
}

// An encoder layer's weights plus cross-attention's and a third norm; the
// memory in fp32 and fp64 with its variance.
static double bytes_needed(const xf_case *c)
{
    double d = xf_case_d_model(c), b = c->batch;
    return XF_F32_BYTES * (xf_encoder_weight_floats(d, c->d_ff) + 4 * d * d + 6 * d) +
           (XF_F32_BYTES + XF_OUT_BYTES) * b * c->seq_q * d + (XF_F32_BYTES + 16) * b * c->seq_k * d +
           xf_layer_activation_bytes(b * c->seq_q, b * c->seq_k, d, c->d_ff);
}

const xf_stage_desc xf_stage_decoder_layer = {.build = build, .reference = reference,
                                              .bytes_needed = bytes_needed, .describe = xf_describe_layer,
                                              .options = xf_compound_options, .grid = xf_grid_compound,
                                              .calls = xf_layer_calls};
