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
// compound stages' small models (compound_models), and those with, in full,
// one of Transformer-base width (compound: the layers' grid).
void xf_grid_attention_like(xf_grid *g, int full);
void xf_grid_linear(xf_grid *g, int full);
void xf_grid_rows(xf_grid *g, int full);
void xf_grid_compound_models(xf_grid *g, int full);
void xf_grid_compound(xf_grid *g, int full);
// One more compound case: a model of Transformer-base width (d 512), or a
// tiny one, with this many layers each side.
void xf_grid_compound_wide(xf_grid *g, int layers);
void xf_grid_compound_layers(xf_grid *g, int layers);
// Decoding: cache depths from empty on, batches, every pad of the source;
// steps 0 for one step at a depth (decode_layer), 1 for as many steps
// (generate).
void xf_grid_decode(xf_grid *g, int full, int steps);

#endif
