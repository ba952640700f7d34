// What the compound stages (ffn, encoder_layer, decoder_layer, forward,
// decode_layer, generate) share: their memory estimate's parts, their
// one-line description and repro options.
#ifndef XF_STAGE_COMPOUND_H
#define XF_STAGE_COMPOUND_H

#include "stage.h"

// Floats of one encoder layer's weights.
double xf_encoder_weight_floats(double d, double d_ff);
// The reference keeps every intermediate in fp64 with its variance, the
// composed fp32 pass its scratch: bytes of the widest layer's activations
// (QKV, attention context, FFN hidden).
double xf_layer_activation_bytes(double rows, double mem_rows, double d, double d_ff);
// "b=.. h=.. dk=.. sq=.. sk=.. d_ff=.." (s=.. for one sequence), then pad.
void xf_describe_layers(const xf_case *c, char *buf, size_t size);
// The same, then pad: the encoder and decoder layers' description.
void xf_describe_layer(const xf_case *c, char *buf, size_t size);
// " --d-ff .. --pad ..".
void xf_compound_options(const xf_case *c, char *buf, size_t size);
// Primitive calls of a layer: linear, attention (softmax is inside it),
// add_layernorm.
int xf_layer_calls(xf_stage p);

#endif
