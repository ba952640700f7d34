// attention: per batch and head softmax(Q K^T / sqrt(dk) + mask) V (kernels/attention.h).
#include "inputs.h"
#include "stage.h"


// The same draws rounded to bf16, in place (the reference reads the rounded
// values), with bf16 copies in the same layout for the variant.
static int bf16_views(xf_instance *in, xf_attention_args *a)
{
    const int d = a->heads * a->dk;
    a->dtype = XF_BF16;
    a->out16 = in->out[0].data16, a->out = NULL;
    if (a->seq_q == a->seq_k) { // one packed QKV buffer
        xf_bf16 *qkv = xf_own_bf16(in, (float *)a->q, (size_t)a->batch * a->seq_q * 3 * d);
        if (!qkv) return -1;
        a->q16 = qkv, a->k16 = qkv + d, a->v16 = qkv + 2 * d;
        return 0;
    }
    xf_bf16 *q = xf_own_bf16(in, (float *)a->q, (size_t)a->batch * a->seq_q * d);
    xf_bf16 *kv = xf_own_bf16(in, (float *)a->k, (size_t)a->batch * a->seq_k * 2 * d);
    if (!q || !kv) return -1;
    a->q16 = q, a->k16 = kv, a->v16 = kv + d;
    return 0;
}

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_attention_args *a = &in->args.attention;
    *a = (xf_attention_args){.batch = c->batch, .heads = c->heads, .dk = c->dk, .seq_q = c->seq_q,
                             .seq_k = c->seq_k, .causal = c->causal, .ldo = d};
    // Q, K and V as a projection leaves them: one packed QKV buffer for
    // self-attention, Q apart from a packed KV for cross-attention, so the
    // row strides are never just heads*dk.
    if (c->seq_q == c->seq_k) {
        float *qkv = xf_own_uniform(in, r, (size_t)c->batch * c->seq_q * 3 * d, -1.5f, 1.5f);
        if (!qkv) return -1;
        a->q = qkv, a->k = qkv + d, a->v = qkv + 2 * d;
        a->ldq = a->ldk = a->ldv = 3 * d;
    } else {
        float *q = xf_own_uniform(in, r, (size_t)c->batch * c->seq_q * d, -1.5f, 1.5f);
        float *kv = xf_own_uniform(in, r, (size_t)c->batch * c->seq_k * 2 * d, -1.5f, 1.5f);
        if (!q || !kv) return -1;
        a->q = q, a->k = kv, a->v = kv + d;
        a->ldq = d, a->ldk = a->ldv = 2 * d;
    }
    a->key_pad = xf_make_pad(in, c->batch, c->seq_k, c->pad);
    if ((c->pad != XF_PAD_NONE && !a->key_pad) || xf_instance_add_output(in, "out", (size_t)c->batch * c->seq_q * d))
        return -1;
    a->out = in->out[0].data;
    if (c->dtype == XF_BF16 && bf16_views(in, a)) return -1;
    in->flops = xf_attention_flops(a), in->bytes = xf_attention_bytes(a);
    in->useful_flops = xf_attention_useful_flops(a);
    return 0;
}

// The variant checked says whether it rounds P to bf16 (bound_p_bf16).
static void reference(xf_instance *in, double ulp)
{
    xf_attention_args a = in->args.attention;
    a.p_bf16 = in->bound_p_bf16;
    xf_ref_attention(&a, ulp, in->ref[0], in->bound[0]);
}

// Q, K, V in fp32 and widened to fp64 by the reference.
static double bytes_needed(const xf_case *c)
{
    double d = xf_case_d_model(c), b = c->batch;
    return (c->dtype == XF_BF16 ? XF_F32_BYTES + 2 + 8 : XF_F32_BYTES + 8) * 3 * d * b * (c->seq_q + c->seq_k) +
           XF_OUT_BYTES * b * c->seq_q * d + b * c->seq_k;
}

static void case_of(const void *args, xf_case *c)
{
    const xf_attention_args *a = args;
    c->batch = a->batch, c->heads = a->heads, c->dk = a->dk, c->seq_q = a->seq_q, c->seq_k = a->seq_k;
    c->causal = a->causal;
}

const xf_stage_desc xf_stage_attention = {.build = build, .reference = reference, .bytes_needed = bytes_needed,
                                          .describe = xf_describe_masked, .options = xf_masked_options,
                                          .grid = xf_grid_attention_like, .case_of = case_of};
