// In-process timing: warm-up, then one timestamp pair per call until both a
// minimum time and a minimum count are reached.
#ifndef XF_TIMER_H
#define XF_TIMER_H

#include "runner.h"

typedef struct {
    double min_time_s; // keep timing until this much time has been spent...
    int min_reps;      // ...and at least this many calls were timed
} xf_timer_opts;

typedef struct {
    int reps;
    double median_ns, min_ns, p10_ns, p90_ns;
    double spread_pct; // (p90 - p10) / median, in percent
} xf_timing;

void xf_time(xf_runner *r, xf_instance *in, const xf_timer_opts *o, xf_timing *t);

#endif
