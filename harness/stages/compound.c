#include "compound.h"

double xf_encoder_weight_floats(double d, double d_ff)
{
    return 4 * d * d + 4 * d + 2 * d * d_ff + d + d_ff + 4 * d;
}

double xf_layer_activation_bytes(double rows, double mem_rows, double d, double d_ff)
{
    return (rows * (8 * d + d_ff) + mem_rows * 3 * d) * (16 + XF_F32_BYTES);
}

void xf_describe_layers(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "b=%d h=%d dk=%d", c->batch, c->heads, c->dk);
    if (c->stage == XF_ENCODER_LAYER) xf_append(buf, size, " s=%d", c->seq_k);
    else xf_append(buf, size, " sq=%d sk=%d", c->seq_q, c->seq_k);
    xf_append(buf, size, " d_ff=%d", c->d_ff);
}

void xf_describe_layer(const xf_case *c, char *buf, size_t size)
{
    xf_describe_layers(c, buf, size);
    xf_append(buf, size, " pad=%s", xf_pad_name(c->pad));
}

void xf_compound_options(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, " --d-ff %d --pad %s", c->d_ff, xf_pad_name(c->pad));
}

int xf_layer_calls(xf_stage p) { return p == XF_LINEAR || p == XF_ATTENTION || p == XF_ADD_LAYERNORM; }
