// ffn: y = linear2(ReLU(linear1(x))) (kernels/layers.h).
#include <stdlib.h>

#include "compound.h"
#include "inputs.h"

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_ffn_args *a = &in->args.ffn;
    xf_ffn_weights *w = xf_instance_own(in, sizeof *w);
    *a = (xf_ffn_args){.m = c->batch * c->seq_q, .d_model = d, .d_ff = c->d_ff, .w = w};
    a->x = xf_own_uniform(in, r, (size_t)a->m * d, -1.0f, 1.0f);
    if (!w || !a->x || xf_make_ffn(in, r, d, c->d_ff, w) || xf_instance_add_output(in, "y", (size_t)a->m * d))
        return -1;
    a->y = in->out[0].data;
    if (c->dtype == XF_BF16) { // weights already bf16 values (xf_own_uniform); bf16 views of x and y
        a->dtype = XF_BF16, a->y16 = in->out[0].data16;
        if (!(a->x16 = xf_own_bf16(in, (float *)a->x, (size_t)a->m * d))) return -1;
    }
    in->flops = xf_ffn_flops(a), in->bytes = xf_ffn_bytes(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    (void)ulp; // exact arithmetic only
    const xf_ffn_args *a = &in->args.ffn;
    size_t count = (size_t)a->m * a->d_model;
    double *x = xf_widen(a->x, count), *zero = calloc(count, sizeof *zero);
    xf_ref_ffn_d(a, x, zero, in->ref[0], in->bound[0]);
    free(x);
    free(zero);
}

static double bytes_needed(const xf_case *c)
{
    double d = xf_case_d_model(c), rows = (double)c->batch * c->seq_q;
    return XF_F32_BYTES * 2 * d * c->d_ff + (XF_F32_BYTES + 8 + XF_OUT_BYTES) * rows * d + (16 + XF_F32_BYTES) * 2 * rows * c->d_ff;
}

static void describe(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "m=%d d=%d d_ff=%d", c->batch * c->seq_q, xf_case_d_model(c), c->d_ff);
}

static int calls(xf_stage p) { return p == XF_LINEAR; }

// The small models and, in both grids, one of Transformer-base width (its
// d_ff 2048 is where the FFN's GEMMs slice k).
static void grid(xf_grid *g, int full)
{
    xf_grid_compound_models(g, full);
    xf_grid_compound_wide(g, 1);
}

const xf_stage_desc xf_stage_ffn = {.build = build, .reference = reference, .bytes_needed = bytes_needed,
                                    .describe = describe, .options = xf_compound_options, .grid = grid,
                                    .calls = calls};
