// Built-in shape grids for `check --grid`: ragged sizes, every padding
// pattern, causal on and off, cross-attention lengths.
#ifndef XF_GRID_H
#define XF_GRID_H

#include "case.h"

// Fills *cases (malloc'd) with the grid's cases of one stage, each with
// base's seed; returns how many.
int xf_grid_cases(const char *grid, xf_stage stage, const xf_case *base, xf_case **cases);

#endif
