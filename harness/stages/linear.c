// linear: y = x W^T + b, optional fused ReLU (kernels/linear.h).
#include "inputs.h"
#include "stage.h"


// n and k default to the packed QKV projection of d_model.
static int out_features(const xf_case *c) { return c->n ? c->n : 3 * xf_case_d_model(c); }
static int in_features(const xf_case *c) { return c->k ? c->k : xf_case_d_model(c); }

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    xf_linear_args *a = &in->args.linear;
    *a = (xf_linear_args){.m = c->batch * c->seq_q, .n = out_features(c), .k = in_features(c), .relu = c->relu};
    float *x = xf_own_uniform(in, r, (size_t)a->m * a->k, -1.0f, 1.0f);
    a->x = x;
    if (!a->x || xf_make_linear(in, r, a->n, a->k, &a->w, &a->b)) return -1;
    if (xf_instance_add_output(in, "y", (size_t)a->m * a->n)) return -1;
    a->y = in->out[0].data;
    if (c->dtype == XF_BF16) { // the same draws rounded: the reference reads the rounded values
        a->dtype = XF_BF16;
        a->x16 = xf_own_bf16(in, x, (size_t)a->m * a->k);
        a->w16 = xf_own_bf16(in, (float *)a->w, (size_t)a->n * a->k); // owned by the instance
        a->b16 = xf_own_bf16(in, (float *)a->b, (size_t)a->n);
        a->y16 = in->out[0].data16, a->y = NULL;
        if (!a->x16 || !a->w16 || !a->b16) return -1;
    }
    in->c.n = a->n, in->c.k = a->k; // the defaults resolved, for the CSV row
    in->flops = xf_linear_flops(a), in->bytes = xf_linear_bytes(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    (void)ulp; // exact arithmetic only
    xf_ref_linear(&in->args.linear, in->ref[0], in->bound[0]);
}

// x widened to fp64 by the reference too; bf16 copies beside the fp32 ones.
static double bytes_needed(const xf_case *c)
{
    double m = (double)c->batch * c->seq_q, n = out_features(c), k = in_features(c);
    return (c->dtype == XF_BF16 ? XF_F32_BYTES + 2 : XF_F32_BYTES) * (m * k + n * k + n) + 8 * m * k +
           XF_OUT_BYTES * m * n;
}

static void describe(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "m=%d n=%d k=%d relu=%d", c->batch * c->seq_q, out_features(c), in_features(c), c->relu);
}

static void options(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, " --n %d --k %d --relu %d", out_features(c), in_features(c), c->relu);
}

static void case_of(const void *args, xf_case *c)
{
    const xf_linear_args *a = args;
    c->seq_q = c->seq_k = a->m, c->n = a->n, c->k = a->k, c->dk = a->k, c->relu = a->relu;
}

const xf_stage_desc xf_stage_linear = {.csv_columns = XF_CSV_NK, .build = build, .reference = reference, .bytes_needed = bytes_needed,
                                       .describe = describe, .options = options, .grid = xf_grid_linear,
                                       .case_of = case_of};
