// In-process timing: warm-up, then one timestamp pair per call until both a
// minimum time and a minimum count are reached. Every timed call is kept
// (samples, in the order they ran) with the machine's state around the
// timed loop (contention.h).
#ifndef XF_TIMER_H
#define XF_TIMER_H

#include "contention.h"
#include "runner.h"

typedef struct {
    double min_time_s; // keep timing until this much time has been spent...
    int min_reps;      // ...and at least this many calls were timed
    int no_warmup;     // 1: the caller ran it just before (best's races of long passes)
} xf_timer_opts;

typedef struct {
    int reps;
    double median_ns, min_ns, p10_ns, p90_ns;
    double spread_pct; // (p90 - p10) / median, in percent
    double *samples;   // reps times in ns, in timing order; owned (xf_timing_free)
    xf_contention state;
    int attempts;           // timings made of this case (bench's --retime); the last is kept
    char set_aside[400];    // why the earlier ones were set aside ("attempt 1: ..."), empty if none
} xf_timing;

void xf_time(xf_runner *r, xf_instance *in, const xf_timer_opts *o, xf_timing *t);
void xf_timing_free(xf_timing *t);

#endif
