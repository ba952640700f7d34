// add_layernorm: y = LayerNorm(x + r) * gamma + beta (kernels/add_layernorm.h).
#include "inputs.h"
#include "stage.h"


static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_add_layernorm_args *a = &in->args.add_layernorm;
    *a = (xf_add_layernorm_args){.rows = c->batch * c->seq_q, .d = d};
    size_t count = (size_t)a->rows * d;
    xf_norm_weights n;
    a->x = xf_own_uniform(in, r, count, -1.0f, 1.0f);
    a->r = xf_own_uniform(in, r, count, -1.0f, 1.0f);
    if (!a->x || !a->r || xf_make_norm(in, r, d, &n) || xf_instance_add_output(in, "y", count)) return -1;
    a->gamma = n.gamma, a->beta = n.beta, a->y = in->out[0].data;
    if (c->dtype == XF_BF16) { // the same draws rounded: the reference reads the rounded values
        a->dtype = XF_BF16;
        a->x16 = xf_own_bf16(in, (float *)a->x, count); // owned by the instance
        a->r16 = xf_own_bf16(in, (float *)a->r, count);
        a->gamma16 = xf_own_bf16(in, (float *)a->gamma, (size_t)d);
        a->beta16 = xf_own_bf16(in, (float *)a->beta, (size_t)d);
        a->y16 = in->out[0].data16, a->y = NULL;
        if (!a->x16 || !a->r16 || !a->gamma16 || !a->beta16) return -1;
    }
    in->flops = xf_add_layernorm_flops(a), in->bytes = xf_add_layernorm_bytes(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    xf_ref_add_layernorm(&in->args.add_layernorm, ulp, in->ref[0], in->bound[0]);
}

// x and r in fp32, their fp64 sum row by row (16 bytes).
static double bytes_needed(const xf_case *c)
{
    double elems = (double)c->batch * c->seq_q * xf_case_d_model(c);
    return (c->dtype == XF_BF16 ? 2 * XF_F32_BYTES + 2 * 2 + 16 : 2 * XF_F32_BYTES + 16) * elems + XF_OUT_BYTES * elems;
}

static void case_of(const void *args, xf_case *c)
{
    const xf_add_layernorm_args *a = args;
    xf_rows_case_of(a->rows, a->d, c);
}

const xf_stage_desc xf_stage_add_layernorm = {.memory_bound = 1, .build = build, .reference = reference,
                                              .bytes_needed = bytes_needed, .describe = xf_describe_rows,
                                              .options = xf_no_options, .grid = xf_grid_rows, .case_of = case_of};
