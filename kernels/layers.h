// Compound stages of the post-LN Transformer, as PyTorch's nn.Transformer
// computes them (norm_first=False, dropout 0):
//   ffn:           y = linear2(ReLU(linear1(x)))
//   encoder_layer: x = AN(x + SelfAttn(x, src_pad)); y = AN(x + FFN(x))
//   decoder_layer: x = AN(x + SelfAttn(x, causal + tgt_pad));
//                  x = AN(x + CrossAttn(x, memory, src_pad)); y = AN(x + FFN(x))
// where AN is add_layernorm and Attn is multi-head attention with packed
// input projection [Wq; Wk; Wv] and an output projection.
// Weight names and layouts follow nn.Transformer's state_dict.
#ifndef XF_LAYERS_H
#define XF_LAYERS_H

#include "xf_common.h"

typedef struct {
    const float *in_proj_w;  // in_proj_w is (3*d_model,d_model): rows Wq, then Wk, then Wv
    const float *in_proj_b;  // in_proj_b is (3*d_model)
    const float *out_proj_w; // out_proj_w is (d_model,d_model)
    const float *out_proj_b; // out_proj_b is (d_model)
} xf_mha_weights;

typedef struct {
    const float *w1, *b1; // linear1: w1 is (d_ff,d_model), b1 is (d_ff)
    const float *w2, *b2; // linear2: w2 is (d_model,d_ff), b2 is (d_model)
} xf_ffn_weights;

typedef struct {
    const float *gamma, *beta; // each (d_model)
} xf_norm_weights;

typedef struct {
    xf_mha_weights self_attn;
    xf_ffn_weights ffn;
    xf_norm_weights norm1, norm2;
} xf_encoder_weights;

typedef struct {
    xf_mha_weights self_attn, cross_attn; // cross_attn is nn's multihead_attn
    xf_ffn_weights ffn;
    xf_norm_weights norm1, norm2, norm3;
} xf_decoder_weights;

typedef struct {
    int m, d_model, d_ff;
    const float *x;          // x is (m,d_model)
    const xf_ffn_weights *w;
    float *y;                // y is (m,d_model)
    // dtype XF_BF16: the activations in and out as bf16 views (the fp32
    // pointers then hold the inputs widened, which the reference reads;
    // the weights stay fp32 pointers holding bf16 values: a composition
    // rounds its own copies, exactly, in prepare); every intermediate is
    // stored in bf16 (docs/design.md, Precision).
    xf_dtype dtype;
    const xf_bf16 *x16;
    xf_bf16 *y16;
} xf_ffn_args;

typedef struct {
    int batch, seq, heads, dk, d_ff; // d_model = heads*dk
    const float *x;                  // x is (batch,seq,d_model)
    const uint8_t *src_pad;          // src_pad is (batch,seq), 1 = padding; or NULL
    const xf_encoder_weights *w;
    float *y;                        // y is (batch,seq,d_model)
    xf_dtype dtype;                  // XF_BF16: as xf_ffn_args
    const xf_bf16 *x16;
    xf_bf16 *y16;
} xf_encoder_layer_args;

typedef struct {
    int batch, seq_t, seq_s, heads, dk, d_ff; // target length, memory (source) length
    const float *x;                           // x is (batch,seq_t,d_model)
    const float *memory;                      // memory is (batch,seq_s,d_model)
    const uint8_t *tgt_pad;                   // tgt_pad is (batch,seq_t); or NULL
    const uint8_t *src_pad;                   // src_pad is (batch,seq_s); or NULL
    const xf_decoder_weights *w;
    float *y;                                 // y is (batch,seq_t,d_model)
    xf_dtype dtype;                           // XF_BF16: as xf_ffn_args
    const xf_bf16 *x16, *memory16;
    xf_bf16 *y16;
} xf_decoder_layer_args;

double xf_ffn_flops(const xf_ffn_args *a);
double xf_ffn_bytes(const xf_ffn_args *a);
double xf_encoder_layer_flops(const xf_encoder_layer_args *a);
double xf_encoder_layer_bytes(const xf_encoder_layer_args *a);
double xf_decoder_layer_flops(const xf_decoder_layer_args *a);
double xf_decoder_layer_bytes(const xf_decoder_layer_args *a);
// Useful FLOPs: the dense count less the masked attention pairs (counts.c).
double xf_encoder_layer_useful_flops(const xf_encoder_layer_args *a);
double xf_decoder_layer_useful_flops(const xf_decoder_layer_args *a);

// fp64 references on fp64 activations with error-model variances
// (errmodel.h). math_ulp: the largest ulp error of the transcendental
// functions the checked variants use.
void xf_ref_ffn_d(const xf_ffn_args *a, const double *x, const double *xvar, double *y,
                  double *yvar);
void xf_ref_encoder_layer_d(const xf_encoder_layer_args *a, const double *x,
                            const double *xvar, double math_ulp, double *y, double *yvar);
void xf_ref_decoder_layer_d(const xf_decoder_layer_args *a, const double *x,
                            const double *xvar, const double *mem, const double *memvar,
                            double math_ulp, double *y, double *yvar);

#endif
