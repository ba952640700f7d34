// encoder_layer: x = AN(x + SelfAttn(x, src_pad)); y = AN(x + FFN(x)) (kernels/layers.h).
#include <stdlib.h>

#include "compound.h"
#include "inputs.h"

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_encoder_layer_args *a = &in->args.encoder_layer;
    xf_encoder_weights *w = xf_instance_own(in, sizeof *w);
    *a = (xf_encoder_layer_args){.batch = c->batch, .seq = c->seq_k, .heads = c->heads, .dk = c->dk,
                                 .d_ff = c->d_ff, .w = w};
    size_t count = (size_t)c->batch * c->seq_k * d;
    a->x = xf_own_uniform(in, r, count, -1.0f, 1.0f);
    a->src_pad = xf_make_pad(in, c->batch, c->seq_k, c->pad);
    if (!w || !a->x || xf_make_encoder(in, r, d, c->d_ff, w) || xf_instance_add_output(in, "y", count))
        return -1;
    a->y = in->out[0].data;
    if (c->dtype == XF_BF16) { // weights already bf16 values (xf_own_uniform); bf16 views of x and y
        a->dtype = XF_BF16, a->y16 = in->out[0].data16;
        if (!(a->x16 = xf_own_bf16(in, (float *)a->x, count))) return -1;
    }
    in->flops = xf_encoder_layer_flops(a), in->bytes = xf_encoder_layer_bytes(a);
    in->useful_flops = xf_encoder_layer_useful_flops(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    const xf_encoder_layer_args *a = &in->args.encoder_layer;
    size_t count = (size_t)a->batch * a->seq * a->heads * a->dk;
    double *x = xf_widen(a->x, count), *zero = calloc(count, sizeof *zero);
    xf_ref_encoder_layer_d(a, x, zero, ulp, in->ref[0], in->bound[0]);
    free(x);
    free(zero);
}

static double bytes_needed(const xf_case *c)
{
    double d = xf_case_d_model(c), rows = (double)c->batch * c->seq_k;
    return XF_F32_BYTES * xf_encoder_weight_floats(d, c->d_ff) + (XF_F32_BYTES + XF_OUT_BYTES) * rows * d +
           xf_layer_activation_bytes(rows, rows, d, c->d_ff);
}

const xf_stage_desc xf_stage_encoder_layer = {.build = build, .reference = reference,
                                              .bytes_needed = bytes_needed, .describe = xf_describe_layer,
                                              .options = xf_compound_options, .grid = xf_grid_compound,
                                              .calls = xf_layer_calls};
