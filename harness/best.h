// The best-of composition (xfbench ... --variant best): for every primitive
// call of a compound stage, the variant measured fastest on this machine
// for that stage, shape and thread count, by a short autotune whose
// results are cached in a file reused until the build or machine changes.
#ifndef XF_BEST_H
#define XF_BEST_H

#include "case.h"
#include "machine.h"
#include "runner.h"

// Fills ops so that compose picks per call. pad: the key padding pattern of
// the compound case (the attention calls are tuned with it); dtype: the
// case's (only variants and families of that dtype compete); threads: the
// run's thread count; retune: ignore the cached choices (those made now
// replace them).
void xf_best_ops(xf_ops *ops, const xf_machine *m, xf_pad pad, xf_dtype dtype, int threads, int retune);
// The runner's resolve for best (runner.h): the per-call composition and
// every family's own pass, each checked and timed as a whole pass on this
// instance, the fastest kept (and cached); -1 if none passed.
int xf_best_resolve(xf_runner *r, xf_instance *in);

#endif
