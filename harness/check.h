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

#endif
