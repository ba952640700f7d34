// Internal to variants/compose: the calls the compositions share (one
// primitive call each, or a short sequence), and the map of a padded
// batch's real tokens.
#ifndef XF_COMPOSE_PARTS_H
#define XF_COMPOSE_PARTS_H

#include "exec.h"

void xf_part_linear(xf_exec *ex, int m, int n, int k, const float *x, const float *w, const float *b, int relu,
                    float *y);
void xf_part_add_norm(xf_exec *ex, int rows, int d, const float *x, const float *r, const xf_norm_weights *n,
                      float *y);
// x is (m,d): y = linear2(ReLU(linear1(x))), hidden (m,d_ff) in scratch
// (NULL: a buffer of its own).
void xf_part_ffn(xf_exec *ex, int m, int d, int d_ff, const float *x, const xf_ffn_weights *w, float *hidden,
                 float *y);
// y = LayerNorm(x) through add_layernorm with a zero residual, so every
// family's LayerNorm serves the final norms.
void xf_part_final_norm(xf_exec *ex, int rows, int d, const xf_norm_weights *n, const float *x, float *y);

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
// compact (n,d) <- the real rows of padded (batch*seq,d)
void xf_rows_gather(const xf_rows *r, int d, const float *padded, float *compact);
// padded (batch*seq,d) <- compact, zeros at padded rows (the contract:
// docs/design.md, Masking)
void xf_rows_scatter(const xf_rows *r, int d, const float *compact, float *padded);

// The encoder stack of a (whole-sequence) pass on its real tokens:
// embedding, layers, final norm; memory (batch,seq_s,d) written with zeros
// at padded rows; returns the compact memory (src.n rows), for the
// decoder's cross-attention.
const float *xf_part_encoder_stack(xf_exec *ex, const xf_forward_args *a, const xf_rows *src);

// Decoding (decode.c): one decode_layer step; generate.
void xf_compose_decode_layer(xf_exec *ex, const xf_decode_layer_args *a);
void xf_compose_generate(xf_exec *ex, const xf_generate_args *a);

#endif
