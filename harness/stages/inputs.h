// Seeded inputs and weights with the value ranges a trained Transformer
// sees, owned by the instance: what every stage's build step draws from.
#ifndef XF_STAGE_INPUTS_H
#define XF_STAGE_INPUTS_H

#include "../case.h"
#include "../rng.h"

// count floats uniform in [lo, hi), rounded to bf16 values in a bf16
// case; NULL if out of memory.
float *xf_own_uniform(xf_instance *in, xf_rng *r, size_t count, float lo, float hi);
// bf16 instances: the count floats at x (owned by the instance) rounded to
// bf16 in place (kernels/half.h: nearest even), and their bf16 copy; NULL
// if out of memory.
xf_bf16 *xf_own_bf16(xf_instance *in, float *x, size_t count);
// Key padding (batch,seq) in the pattern (docs/design.md, Masking); NULL for
// XF_PAD_NONE or out of memory.
uint8_t *xf_make_pad(xf_instance *in, int batch, int seq, xf_pad pattern);
// count token ids in [0, vocab).
int32_t *xf_make_ids(xf_instance *in, xf_rng *r, size_t count, int vocab);
// An embedding table (vocab,d).
float *xf_make_table(xf_instance *in, xf_rng *r, int vocab, int d);
// Weights in nn.Transformer's layouts; each 0, or -1 if out of memory.
int xf_make_linear(xf_instance *in, xf_rng *r, int out, int inp, const float **w, const float **b);
int xf_make_norm(xf_instance *in, xf_rng *r, int d, xf_norm_weights *n);
int xf_make_ffn(xf_instance *in, xf_rng *r, int d, int d_ff, xf_ffn_weights *w);
int xf_make_encoder(xf_instance *in, xf_rng *r, int d, int d_ff, xf_encoder_weights *w);
int xf_make_decoder(xf_instance *in, xf_rng *r, int d, int d_ff, xf_decoder_weights *w);

// A whole model of the case's shape, drawn in one order: token ids
// (batch,seq_k) and (batch,seq_q), both embedding tables, c->layers encoder
// and c->dec_layers decoder layers, the final norms if c->final_norm.
typedef struct {
    const int32_t *src_ids, *tgt_ids;
    const float *src_table, *tgt_table;
    const xf_encoder_weights *enc;
    const xf_decoder_weights *dec;
    xf_norm_weights enc_norm, dec_norm;
} xf_model;
int xf_make_model(xf_instance *in, xf_rng *r, const xf_case *c, xf_model *m);

#endif
