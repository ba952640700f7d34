// Token-by-token decoding, as inference runs an encoder-decoder: the
// encoder once, each decoder layer's cross-attention keys and values once
// per sequence, then one decoder step per new token, the keys and values of
// earlier tokens kept in a cache.
//
//   decode_layer: one decoder layer (kernels/layers.h) for one new token per
//                 sequence at position pos: its Q, K, V projected, its K|V
//                 appended to the cache at row pos, self-attention over cache
//                 rows 0..pos (itself included), cross-attention over the
//                 memory's K|V, FFN, three Add & Norms.
//   generate:     memory = the encoder stack (kernels/forward.h); per
//                 decoder layer the memory's K|V; then for t = 0..steps-1:
//                 embed token t at position t, every decode_layer, the
//                 decoder's final norm, logits = y E^T (lm_head).
//
// The cache of a layer is (batch,capacity,2*d_model): row j holds position
// j's K (first d_model floats) and V (next d_model), heads as dk-column
// slices, the layout of the packed KV projection the full pass computes for
// cross-attention. A step reads rows 0..pos and writes row pos: one pointer,
// one row stride, no per-head copy (docs/design.md, Decoding).
//
// Step t of generate equals row t of the full pass (forward) with the
// causal mask, teacher-forced: that is its check.
#ifndef XF_DECODE_H
#define XF_DECODE_H

#include "forward.h"

typedef struct {
    int batch, heads, dk, d_ff, seq_s;
    int pos;                // the new token's position = the cache rows already filled
    int capacity;           // rows of the cache per sequence, > pos
    const float *x;         // x is (batch,d_model): the new token's layer input
    float *self_kv;         // self_kv is (batch,capacity,2*d_model): rows < pos read, row pos written
    const float *cross_kv;  // cross_kv is (batch,seq_s,2*d_model): the memory's K|V
    const uint8_t *src_pad; // src_pad is (batch,seq_s), 1 = padding; or NULL
    const xf_decoder_weights *w;
    float *y;               // y is (batch,d_model)
    xf_dtype dtype;         // XF_BF16: as xf_ffn_args (kernels/layers.h); the caches too
    const xf_bf16 *x16, *cross_kv16;
    xf_bf16 *self_kv16, *y16;
} xf_decode_layer_args;

typedef struct {
    int batch, seq_s, steps, heads, dk, d_ff, enc_layers, dec_layers, vocab;
    // 0: teacher-forced, token t is tgt_ids[.][t] (the checked contract);
    // 1: greedy, token 0 from tgt_ids, token t+1 = argmax of step t's logits.
    int greedy;
    const int32_t *src_ids;        // src_ids is (batch,seq_s); or NULL: src_x is used
    const int32_t *tgt_ids;        // tgt_ids is (batch,steps); or NULL: tgt_x is used
    const float *src_table;        // src_table is (vocab,d_model)
    const float *tgt_table;        // tgt_table is (vocab,d_model): embedding and lm_head (tied)
    const float *src_x;            // src_x is (batch,seq_s,d_model), already embedded
    const float *tgt_x;            // tgt_x is (batch,steps,d_model), already embedded (a model
                                   // file's teacher-forced target: no table, no logits)
    const xf_encoder_weights *enc; // enc[enc_layers]
    const xf_decoder_weights *dec; // dec[dec_layers]
    xf_norm_weights enc_norm, dec_norm; // gamma NULL: no final norm
    const uint8_t *src_pad;        // src_pad is (batch,seq_s); or NULL
    const uint8_t *tgt_pad;        // tgt_pad is (batch,steps), trailing only (a sequence's end); or NULL
    int32_t *tokens;               // tokens is (batch,steps): the token fed at each step (ids only)
    float *memory;                 // memory is (batch,seq_s,d_model)
    float *y;                      // y is (batch,steps,d_model): each step's decoder output
    float *logits;                 // logits is (batch,steps,vocab); NULL: no lm_head
    xf_dtype dtype;                // XF_BF16: as xf_ffn_args (kernels/layers.h)
    const xf_bf16 *src_x16, *tgt_x16;
    xf_bf16 *memory16, *y16, *logits16;
} xf_generate_args;

// FLOPs of the step as computed (every cached key, padded ones included).
double xf_decode_layer_flops(const xf_decode_layer_args *a);
// What a step must move: the layer's weights, the cache rows and the
// memory's K|V it reads, the row it appends, its input and output.
double xf_decode_layer_bytes(const xf_decode_layer_args *a);
// Useful: cross-attention's padded keys not counted.
double xf_decode_layer_useful_flops(const xf_decode_layer_args *a);
double xf_generate_flops(const xf_generate_args *a);
double xf_generate_useful_flops(const xf_generate_args *a);
// The encoder pass's bytes plus every step's: each step streams every
// decoder layer's weights and the tied table again.
double xf_generate_bytes(const xf_generate_args *a);

// fp64 reference of one step on fp64 x (var: error model, errmodel.h): the
// cache rows < pos and the memory's K|V are the step's given state, read as
// exact; row pos is computed from x.
void xf_ref_decode_layer_d(const xf_decode_layer_args *a, const double *x, const double *xvar,
                           double math_ulp, double *y, double *yvar);
// fp64 reference of generate, teacher-forced: the full pass (causal
// decoder) on tgt_ids, then the logits; each output with its variance.
// The full pass a teacher-forced generation computes (its target the
// `steps` tokens), and the generation of a pass's target: every field the
// two share, in one place (kernels/decode_shape.c). Generation's own
// fields (greedy, tokens, logits) are left 0.
xf_forward_args xf_forward_of_generate(const xf_generate_args *g);
xf_generate_args xf_generate_of_forward(const xf_forward_args *f);

void xf_ref_generate_d(const xf_generate_args *a, double math_ulp, double *memory, double *memvar,
                       double *y, double *yvar, double *logits, double *logitvar);

#endif
