// softmax: rows of softmax(scale * x + mask), x is (B,H,Sq,Sk) (kernels/softmax.h).
#include <math.h>

#include "inputs.h"
#include "stage.h"


static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    xf_softmax_args *a = &in->args.softmax;
    *a = (xf_softmax_args){.batch = c->batch, .heads = c->heads, .seq_q = c->seq_q, .seq_k = c->seq_k,
                           .scale = 1.0f / sqrtf((float)c->dk), .causal = c->causal};
    size_t count = (size_t)c->batch * c->heads * c->seq_q * c->seq_k;
    // Raw scores q.k of unit-scale q and k: spread like sqrt(dk).
    float spread = 2.0f * sqrtf((float)c->dk);
    a->x = xf_own_uniform(in, r, count, -spread, spread);
    a->key_pad = xf_make_pad(in, c->batch, c->seq_k, c->pad);
    if (!a->x || (c->pad != XF_PAD_NONE && !a->key_pad) || xf_instance_add_output(in, "y", count)) return -1;
    a->y = in->out[0].data;
    if (c->dtype == XF_BF16) { // the same draws rounded: the reference reads the rounded values
        a->dtype = XF_BF16, a->y16 = in->out[0].data16, a->y = NULL;
        if (!(a->x16 = xf_own_bf16(in, (float *)a->x, count))) return -1;
    }
    in->flops = xf_softmax_flops(a), in->bytes = xf_softmax_bytes(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    xf_ref_softmax(&in->args.softmax, ulp, in->ref[0], in->bound[0]);
}

static double bytes_needed(const xf_case *c)
{
    return (c->dtype == XF_BF16 ? XF_F32_BYTES + 2 + XF_OUT_BYTES : XF_F32_BYTES + XF_OUT_BYTES) * (double)c->batch *
               c->heads * c->seq_q * c->seq_k +
           (double)c->batch * c->seq_k;
}

static void case_of(const void *args, xf_case *c)
{
    const xf_softmax_args *a = args;
    c->batch = a->batch, c->heads = a->heads, c->seq_q = a->seq_q, c->seq_k = a->seq_k, c->causal = a->causal;
    c->dk = (int)lrintf(1.0f / (a->scale * a->scale));
}

const xf_stage_desc xf_stage_softmax = {.memory_bound = 1, .build = build, .reference = reference,
                                        .bytes_needed = bytes_needed, .describe = xf_describe_masked, .options = xf_masked_options,
                                        .grid = xf_grid_attention_like, .case_of = case_of};
