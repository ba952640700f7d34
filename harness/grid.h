// Built-in shape grids for `check --grid`: ragged sizes, every padding
// pattern, causal on and off, cross-attention lengths. Each stage's
// descriptor (stages/stage.h) names the grid it is checked on.
#ifndef XF_GRID_H
#define XF_GRID_H

#include "case.h"

// A growing list of cases; base holds the stage, seed and options every
// case starts from.
typedef struct {
    xf_case *c;
    int n, cap;
    xf_case base;
} xf_grid;

// Fills *cases (malloc'd) with the grid's cases of one stage, each with
// base's seed; returns how many.
int xf_grid_cases(const char *grid, xf_stage stage, const xf_case *base, xf_case **cases);

// The grids: attention and softmax; linear; the row-wise stages; the
// compound stages (by base.stage).
void xf_grid_attention_like(xf_grid *g, int full);
void xf_grid_linear(xf_grid *g, int full);
void xf_grid_rows(xf_grid *g, int full);
void xf_grid_compound(xf_grid *g, int full);
// Decoding (decode_layer, generate): cache depths from empty on, batches,
// every pad of the source.
void xf_grid_decode(xf_grid *g, int full);

#endif
