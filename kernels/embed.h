// embed: y[b][s] = E[ids[b][s]] * sqrt(d_model) + PE[s], with the sinusoidal
// positions of "Attention Is All You Need" (section 3.5):
//   PE[pos][2i]   = sin(pos / 10000^(2i/d_model))
//   PE[pos][2i+1] = cos(pos / 10000^(2i/d_model))
// Positions count from pos0 within each sequence: 0 for whole sequences, the
// step's position when a decoder embeds one new token at a time.
#ifndef XF_EMBED_H
#define XF_EMBED_H

#include "xf_common.h"

typedef struct {
    int batch, seq, d_model, vocab;
    int pos0;            // position of each sequence's first row
    const int32_t *ids;  // ids is (batch,seq); every id in [0, vocab)
    const float *table;  // table is (vocab,d_model)
    float *y;            // y is (batch,seq,d_model)
    // dtype XF_BF16: the table also as bf16 (table above then holds the
    // same values widened, which the reference reads); the output is y16
    // (y unused). Positions are computed in fp32 and the sum rounded once.
    xf_dtype dtype;
    const xf_bf16 *table16;
    xf_bf16 *y16;
} xf_embed_args;

// Counted per output element: the scale multiply and the PE add (the
// transcendental PE itself is not counted, as it can be tabulated once).
static inline double xf_embed_flops(const xf_embed_args *a)
{
    return 2.0 * a->batch * a->seq * a->d_model;
}

// The compulsory bytes: ids, the distinct table rows (a repeated id finds
// its row in cache: counting every token's row put the avx512 embed, with
// streaming stores, at 136% of the DRAM roof at batch 8, seq 2048, vocab
// 1000), and y. Without ids or vocab (a composition's count), every
// token's row. kernels/counts.c.
double xf_embed_bytes(const xf_embed_args *a);

// The angle pos / 10000^(2i/d_model) of column col (i = col / 2).
double xf_pe_angle(int pos, int col, int d_model);

// The fp64 reference; bound (componentwise) and var (error model,
// errmodel.h) may each be NULL. math_ulp: the variant's maximum error, in
// ulps, of exp/pow/sin/cos.
void xf_ref_embed(const xf_embed_args *a, double math_ulp, double *y, double *bound,
                  double *var);

#endif
