// Correctness first: one run of a variant compared with the fp64 reference,
// element by element, against the bound of its stage.
#ifndef XF_CHECK_H
#define XF_CHECK_H

#include "runner.h"

typedef struct {
    int passed;
    double max_abs, max_rel, nmse;
    double worst_ratio; // max |out - ref| / bound: <= 1 passes
    char why[200];      // the first reason it failed, with the element
} xf_check_result;

// Poisons the outputs, runs the (prepared) variant once, then checks guard
// zones, NaNs and every element.
void xf_check_run(xf_runner *r, xf_instance *in, xf_check_result *res);

// What a lower precision costs, reported, never gated on (docs/design.md,
// Precision): the outputs of in (a bf16 case, after xf_check_run) against
// f32, the same case in fp32 (the same draws, unrounded) with its
// reference computed: max_rel = max |y - r| / max |r| (normwise, so outputs
// near zero do not blow it up) and nmse = sum (y - r)^2 / sum r^2.
typedef struct {
    double max_rel, nmse;
} xf_distance;
xf_distance xf_check_distance(const xf_instance *in, const xf_instance *f32);

#endif
