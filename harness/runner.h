// Prepares, runs and releases one variant on one instance, primitive or
// composed, so that check and bench drive both the same way.
#ifndef XF_RUNNER_H
#define XF_RUNNER_H

#include "case.h"

typedef struct xf_runner {
    const xf_variant *v; // primitive stage: the variant; NULL for compound stages
    xf_ops ops;          // compound stages: the primitives composed
    const char *name;    // variant name, or the family name for compound stages
    void *ctx;
    xf_exec ex;
    double prepare_ns;   // time spent in prepare (weight packing, JIT), reported apart
    double math_ulp;
    int p_bf16; // the variant's, or any composed primitive's (variant.h)
    // Compound stages, optional: settles ops for this instance before it is
    // prepared (--variant best measures whole passes: best.h); -1 if
    // nothing can run it.
    int (*resolve)(struct xf_runner *r, struct xf_instance *in);
} xf_runner;

// 0, or -1 when the variant's prepare refused this shape.
int xf_runner_prepare(xf_runner *r, xf_instance *in);
void xf_runner_run(xf_runner *r, xf_instance *in);
void xf_runner_release(xf_runner *r);

#endif
