// The best-of composition (xfbench ... --variant best): for every primitive
// call of a compound stage, the variant measured fastest on this machine
// for that stage, shape and thread count, by a short autotune whose
// results are cached in a file reused until the build or machine changes.
#ifndef XF_BEST_H
#define XF_BEST_H

#include "case.h"
#include "machine.h"
#include "runner.h"

// How best tunes for one run.
typedef struct {
    xf_pad pad;     // the key padding pattern of the compound case (the attention calls are tuned with it)
    xf_dtype dtype; // the case's: only variants and families of that dtype compete
    int threads;    // the run's thread count
    int retune;     // ignore the cached choices (those made now replace them)
    double tune_s;  // seconds per candidate and round racing a call (--tune-time); a whole pass gets 6x
} xf_best_settings;

// Fills ops so that compose picks per call.
void xf_best_ops(xf_ops *ops, const xf_machine *m, const xf_best_settings *how);
// The runner's resolve for best (runner.h): the per-call composition and
// every family's own pass, each checked and timed as a whole pass on this
// instance, the fastest kept (and cached); -1 if none passed.
int xf_best_resolve(xf_runner *r, xf_instance *in);

#endif
