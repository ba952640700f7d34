#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "stages/stage.h"

// The dimensions the foundation issue asks every stage to survive.
static const int SEQS[] = {1, 3, 17, 113};
static const int DKS[] = {8, 24, 64, 72, 128};
static const int HEADS[] = {1, 3, 8};
static const int BATCHES[] = {1, 3};
static const int RAGGED_ROWS[] = {13, 37}; // row widths of the row-wise stages (one head)
// (seq_q, seq_k) pairs for cross-attention, both longer and shorter.
static const int CROSS[][2] = {{1, 17}, {17, 3}, {113, 17}, {3, 113}};
// Linear (n, k): tiny, odd, K not a multiple of any vector width, wide,
// K of several of the SIMD GEMM's k slices (640 or 1024 deep: blocking.c),
// K whose row stride is a multiple of 4 KiB (1024: the GEMM copies such
// an A block, simd/gemm.c).
static const int NK[][2] = {{1, 1}, {24, 8}, {72, 128}, {192, 64}, {13, 515}, {13, 2051}, {13, 1024}};

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

static void push(xf_grid *l, xf_case c)
{
    if (l->n == l->cap) l->c = realloc(l->c, (size_t)(l->cap = l->cap ? 2 * l->cap : 64) * sizeof c);
    l->c[l->n++] = c;
}

static xf_case shape(const xf_grid *l, int batch, int heads, int dk, int seq_q, int seq_k)
{
    xf_case c = l->base;
    c.batch = batch, c.heads = heads, c.dk = dk, c.seq_q = seq_q, c.seq_k = seq_k;
    c.d_ff = 4 * heads * dk;
    c.n = c.k = c.relu = c.causal = 0;
    c.pad = XF_PAD_NONE;
    return c;
}

// Attention and softmax: full is the cartesian product, quick covers every
// value of every dimension, every pad x causal pair and every cross shape.
void xf_grid_attention_like(xf_grid *l, int full)
{
    for (int p = 0; p < XF_NPADS; p++)
        for (int causal = 0; causal < 2; causal++) {
            if (full) {
                for (int s = 0; s < COUNT(SEQS); s++)
                    for (int d = 0; d < COUNT(DKS); d++)
                        for (int h = 0; h < COUNT(HEADS); h++)
                            for (int b = 0; b < COUNT(BATCHES); b++) {
                                xf_case c = shape(l, BATCHES[b], HEADS[h], DKS[d], SEQS[s], SEQS[s]);
                                c.pad = (xf_pad)p, c.causal = causal;
                                push(l, c);
                            }
            } else {
                xf_case c = shape(l, 3, 3, 24, 17, 17);
                c.pad = (xf_pad)p, c.causal = causal;
                push(l, c);
            }
            for (int x = 0; x < COUNT(CROSS); x++) {
                xf_case c = shape(l, 3, full ? 8 : 3, full ? 64 : 8, CROSS[x][0], CROSS[x][1]);
                c.pad = (xf_pad)p, c.causal = causal;
                push(l, c);
            }
        }
    if (full) return;
    for (int d = 0; d < COUNT(DKS); d++) {
        xf_case c = shape(l, 1, 8, DKS[d], 113, 113);
        c.pad = XF_PAD_SOME, c.causal = 1;
        push(l, c);
    }
    for (int s = 0; s < COUNT(SEQS); s++) {
        xf_case c = shape(l, 3, 1, 8, SEQS[s], SEQS[s]);
        c.pad = XF_PAD_ALL_BUT_ONE, c.causal = s % 2;
        push(l, c);
    }
    for (int h = 0; h < COUNT(HEADS); h++) push(l, shape(l, 1, HEADS[h], 64, 17, 17));
}

void xf_grid_linear(xf_grid *l, int full)
{
    for (int s = 0; s < COUNT(SEQS); s++)
        for (int b = 0; b < COUNT(BATCHES); b++)
            for (int x = 0; x < COUNT(NK); x++)
                for (int relu = 0; relu < 2; relu++) {
                    if (!full && (b + x + relu + s) % 3 != 0) continue;
                    xf_case c = shape(l, BATCHES[b], 1, 8, SEQS[s], SEQS[s]);
                    c.n = NK[x][0], c.k = NK[x][1], c.relu = relu;
                    push(l, c);
                }
    // Decode steps at batch 2 and 4 to 8 (M the grid's others miss):
    // avx512bf16 streams up to two rows itself and the amx and bf16 FMA
    // families up to four, the GEMMs take them on from there, avx512's
    // through its few-row tiles of 5 to 8 rows (70 columns: a ragged last
    // panel of every width).
    for (int b = 2; b <= 8; b += b == 2 ? 2 : 1) {
        xf_case c = shape(l, b, 1, 8, 1, 1);
        c.n = b < 5 ? 13 : 70, c.k = 515, c.relu = b % 2 == 0;
        push(l, c);
    }
    if (!full) { // the Transformer-base shapes, one row each
        xf_case c = shape(l, 1, 8, 64, 3, 3);
        c.n = 2048, c.k = 512, c.relu = 1;
        push(l, c);
        // Past the SIMD GEMM's row blocks (1024 rows at k 2048), two k
        // slices, a ragged row panel and a narrow column panel at once;
        // with the grid's M (1, 3, 9, 17, 51, 113, 339) the ragged panels
        // of 1 to 5 rows (M mod 6) all occur: 1100 leaves 2, 10 leaves 4.
        c = shape(l, 1, 8, 64, 1100, 1100);
        c.n = 70, c.k = 2051, c.relu = 0;
        push(l, c);
        c = shape(l, 1, 8, 64, 10, 10);
        c.n = 70, c.k = 515, c.relu = 1;
        push(l, c);
        // FFN2's k, with a ragged panel of 4 rows (tests/meson.build
        // runs the linear grid under small caches too, so k is cut in
        // slices in every family).
        c = shape(l, 1, 8, 64, 100, 100);
        c.n = 70, c.k = 2048, c.relu = 1;
        push(l, c);
    }
}

// Row-wise stages: every seq and batch, d_model from 8 to 1024.
void xf_grid_rows(xf_grid *l, int full)
{
    for (int s = 0; s < COUNT(SEQS); s++)
        for (int b = 0; b < COUNT(BATCHES); b++)
            for (int h = 0; h < COUNT(HEADS); h++)
                for (int d = 0; d < COUNT(DKS); d++) {
                    if (!full && (s + b + h + d) % 4 != 0) continue;
                    push(l, shape(l, BATCHES[b], HEADS[h], DKS[d], SEQS[s], SEQS[s]));
                }
    // Every heads x dk above is a multiple of 8 floats: rows of 13 and 37
    // leave a tail of every SIMD width (5 and 13 of avx512's 16, 5 of
    // avx2's 8), which a tail dropped from avx2's sums would otherwise pass.
    for (int s = 0; s < COUNT(SEQS); s++)
        for (int b = 0; b < COUNT(BATCHES); b++)
            for (int w = 0; w < COUNT(RAGGED_ROWS); w++)
                if (full || (s + b + w) % 2 == 0) push(l, shape(l, BATCHES[b], 1, RAGGED_ROWS[w], SEQS[s], SEQS[s]));
}

// Compound stages: small models over the pads, 2 + 2 layers.
void xf_grid_compound_models(xf_grid *l, int full)
{
    static const int dims[][5] = {
        // batch, heads, dk, seq_q, seq_k
        {1, 1, 8, 1, 1}, {3, 3, 8, 17, 17}, {1, 8, 8, 3, 17}, {3, 2, 24, 17, 3},
    };
    for (int i = 0; i < COUNT(dims); i++)
        for (int p = 0; p < XF_NPADS; p++) {
            if (!full && (i + p) % 2) continue;
            xf_case c = shape(l, dims[i][0], dims[i][1], dims[i][2], dims[i][3], dims[i][4]);
            c.pad = (xf_pad)p;
            c.layers = c.dec_layers = 2;
            c.vocab = 50;
            c.final_norm = (i + p) % 3 != 0;
            push(l, c);
        }
}

void xf_grid_compound(xf_grid *l, int full)
{
    xf_grid_compound_models(l, full);
    if (full) xf_grid_compound_wide(l, 1);
}

void xf_grid_compound_wide(xf_grid *l, int layers)
{
    xf_case c = shape(l, 2, 8, 64, 33, 40); // Transformer-base width
    c.pad = XF_PAD_SOME, c.layers = c.dec_layers = layers, c.vocab = 100;
    c.final_norm = 1;
    push(l, c);
}

void xf_grid_compound_layers(xf_grid *l, int layers)
{
    xf_case c = shape(l, 2, 3, 8, 5, 7);
    c.pad = XF_PAD_SOME, c.layers = c.dec_layers = layers, c.vocab = 20, c.final_norm = layers;
    push(l, c);
}

// decode_layer (steps 0): depth is the cache rows before the new token (0:
// the first step); generate (steps 1): seq_q is the steps.
void xf_grid_decode(xf_grid *l, int full, int steps)
{
    static const int dims[][5] = {
        // batch, heads, dk, depth or steps, seq_k
        {1, 1, 8, 0, 1}, {3, 3, 8, 17, 17}, {1, 8, 8, 3, 17}, {3, 2, 24, 5, 3}, {2, 8, 64, 40, 33},
    };
    for (int i = 0; i < COUNT(dims); i++)
        for (int p = 0; p < XF_NPADS; p++) {
            if (!full && (i + p) % 2) continue;
            xf_case c = shape(l, dims[i][0], dims[i][1], dims[i][2], 1, dims[i][4]);
            c.pad = (xf_pad)p;
            if (steps) c.seq_q = dims[i][3] ? dims[i][3] : 1;
            else c.depth = dims[i][3];
            c.layers = c.dec_layers = 2;
            c.vocab = i == 4 ? 1000 : 50;
            c.final_norm = (i + p) % 3 != 0;
            push(l, c);
        }
}

int xf_grid_cases(const char *grid, xf_stage stage, const xf_case *base, xf_case **cases)
{
    xf_grid l = {.base = *base};
    l.base.stage = stage;
    xf_stage_desc_of(stage)->grid(&l, strcmp(grid, "full") == 0);
    *cases = l.c;
    return l.n;
}
