// What a case will allocate, estimated from above before anything is, so
// that sizes which cannot fit are refused with the number of bytes.
#include "case.h"

// fp32 element, plus the fp64 reference value and bound of an output.
enum { F = 4, OUT = 4 + 8 + 8 };

static double encoder_weight_floats(double d, double d_ff)
{
    return 4 * d * d + 4 * d + 2 * d * d_ff + d + d_ff + 4 * d;
}

// The reference keeps every intermediate in fp64 with its variance (16
// bytes), and the composed fp32 pass keeps its scratch (4 bytes): count the
// widest layer's activations, QKV, attention context, FFN hidden.
static double layer_activations(double rows, double mem_rows, double d, double d_ff)
{
    return (rows * (8 * d + d_ff) + mem_rows * 3 * d) * (16 + F);
}

double xf_case_bytes(const xf_case *c)
{
    const double d = xf_case_d_model(c), b = c->batch, sq = c->seq_q, sk = c->seq_k;
    switch (c->stage) {
    case XF_EMBED: return F * c->vocab * d + b * sq * (F + OUT * d);
    case XF_LINEAR: {
        double m = b * sq, n = c->n ? c->n : 3 * d, k = c->k ? c->k : d;
        return F * (m * k + n * k + n) + 8 * m * k + OUT * m * n;
    }
    case XF_SOFTMAX: return (F + OUT) * b * c->heads * sq * sk + b * sk;
    case XF_ATTENTION: return (F + 8) * 3 * d * b * (sq + sk) + OUT * b * sq * d + b * sk;
    case XF_ADD_LAYERNORM: return (2 * F + 16) * b * sq * d + OUT * b * sq * d;
    case XF_FFN:
        return F * 2 * d * c->d_ff + (F + 8 + OUT) * b * sq * d + (16 + F) * 2 * b * sq * c->d_ff;
    case XF_ENCODER_LAYER:
        return F * encoder_weight_floats(d, c->d_ff) + (F + OUT) * b * sk * d +
               layer_activations(b * sk, b * sk, d, c->d_ff);
    case XF_DECODER_LAYER:
        return F * (encoder_weight_floats(d, c->d_ff) + 4 * d * d + 6 * d) +
               (F + OUT) * b * sq * d + (F + 16) * b * sk * d +
               layer_activations(b * sq, b * sk, d, c->d_ff);
    case XF_FORWARD: {
        double enc = encoder_weight_floats(d, c->d_ff);
        double dec = enc + 4 * d * d + 6 * d;
        return F * (c->layers * enc + c->dec_layers * dec + 2 * c->vocab * d) + (OUT + 16) * b * (sq + sk) * d +
               layer_activations(b * (sq + sk), b * sk, d, c->d_ff);
    }
    default: return 0;
    }
}
