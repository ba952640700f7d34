// forward: the whole encoder-decoder pass of nn.Transformer (post-LN):
//   memory = EncNorm(Enc_N(...Enc_1(embed(src_ids))))
//   y      = DecNorm(Dec_N(...Dec_1(embed(tgt_ids), memory)))
// Encoder self-attention masks src_pad; decoder self-attention is causal and
// masks tgt_pad; cross-attention masks src_pad. The final norms are optional
// (NULL gamma), as nn.Transformer's encoder.norm and decoder.norm. Encoder
// and decoder may have different layer counts, as in nn.Transformer.
// The inputs are token ids through the embed stage, or (ids NULL) already
// embedded sequences, as nn.Transformer.forward takes them.
#ifndef XF_FORWARD_H
#define XF_FORWARD_H

#include "embed.h"
#include "layers.h"

typedef struct {
    int batch, seq_s, seq_t, heads, dk, d_ff, enc_layers, dec_layers, vocab;
    const int32_t *src_ids;        // src_ids is (batch,seq_s); or NULL: src_x is used
    const int32_t *tgt_ids;        // tgt_ids is (batch,seq_t); or NULL: tgt_x is used
    const float *src_table;        // src_table is (vocab,d_model)
    const float *tgt_table;        // tgt_table is (vocab,d_model)
    const float *src_x;            // src_x is (batch,seq_s,d_model), already embedded
    const float *tgt_x;            // tgt_x is (batch,seq_t,d_model), already embedded
    const xf_encoder_weights *enc; // enc[enc_layers]
    const xf_decoder_weights *dec; // dec[dec_layers]
    xf_norm_weights enc_norm, dec_norm; // gamma NULL: no final norm
    const uint8_t *src_pad;        // src_pad is (batch,seq_s); or NULL
    const uint8_t *tgt_pad;        // tgt_pad is (batch,seq_t); or NULL
    float *memory;                 // memory is (batch,seq_s,d_model): encoder output
    float *y;                      // y is (batch,seq_t,d_model): decoder output
    xf_dtype dtype;                // XF_BF16: as xf_ffn_args (kernels/layers.h)
    const xf_bf16 *src_x16, *tgt_x16;
    xf_bf16 *memory16, *y16;
} xf_forward_args;

double xf_forward_flops(const xf_forward_args *a);
double xf_forward_bytes(const xf_forward_args *a);
double xf_forward_useful_flops(const xf_forward_args *a); // dense less masked attention pairs

// fp64 reference pass with error-model variances; memory/memvar and y/yvar
// are (batch,seq_s,d_model) and (batch,seq_t,d_model).
void xf_ref_forward_d(const xf_forward_args *a, double math_ulp, double *memory,
                      double *memvar, double *y, double *yvar);

#endif
