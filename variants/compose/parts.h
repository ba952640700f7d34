// Internal to variants/compose: the calls the compositions share (one
// primitive call each, or a short sequence), and the map of a padded
// batch's real tokens. The pieces that handle activations exist once per
// dtype (act.h: XF_PART(linear) is xf_part_linear in fp32, xf_part16_linear
// in bf16).
#ifndef XF_COMPOSE_PARTS_H
#define XF_COMPOSE_PARTS_H

#include "act.h"

// The real tokens of a padded batch (batch,seq): n of them, batch b's are
// compact rows off[b]..off[b]+len[b]-1, in order; row[i] is compact row
// i's padded row (b*seq + s). Without padding (pad NULL) every row is real
// and compact rows are the padded rows.
typedef struct {
    int batch, seq, n;
    const uint8_t *pad;
    int *off, *len, *row;
} xf_rows;

xf_rows xf_rows_of(xf_exec *ex, int batch, int seq, const uint8_t *pad);

void XF_PART(linear)(xf_exec *ex, int m, int n, int k, const xf_act *x, const float *w, const float *b, int relu,
                     xf_act *y);
void XF_PART(add_norm)(xf_exec *ex, int rows, int d, const xf_act *x, const xf_act *r, const xf_norm_weights *n,
                       xf_act *y);
// x is (m,d): y = linear2(ReLU(linear1(x))), hidden (m,d_ff) in scratch
// (NULL: a buffer of its own).
void XF_PART(ffn)(xf_exec *ex, int m, int d, int d_ff, const xf_act *x, const xf_ffn_weights *w, xf_act *hidden,
                  xf_act *y);
// y = LayerNorm(x) through add_layernorm with a zero residual, so every
// family's LayerNorm serves the final norms.
void XF_PART(final_norm)(xf_exec *ex, int rows, int d, const xf_norm_weights *n, const xf_act *x, xf_act *y);

// compact (n,d) <- the real rows of padded (batch*seq,d)
void XF_PART(rows_gather)(const xf_rows *r, int d, const xf_act *padded, xf_act *compact);
// padded (batch*seq,d) <- compact, zeros at padded rows (the contract:
// docs/design.md, Masking)
void XF_PART(rows_scatter)(const xf_rows *r, int d, const xf_act *compact, xf_act *padded);

// The encoder stack of a (whole-sequence) pass on its real tokens:
// embedding, layers, final norm; memory (batch,seq_s,d) written with zeros
// at padded rows; returns the compact memory (src.n rows), for the
// decoder's cross-attention.
const xf_act *XF_PART(encoder_stack)(xf_exec *ex, const xf_forward_args *a, const xf_rows *src);

// Decoding (decode.c): one decode_layer step; generate.
void XF_PART(decode_layer)(xf_exec *ex, const xf_decode_layer_args *a);
void XF_PART(generate)(xf_exec *ex, const xf_generate_args *a);

// Every compound stage of this dtype (compose.c).
void XF_PART(dispatch)(xf_exec *ex, xf_stage stage, const void *args);

#endif
