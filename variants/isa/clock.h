// The one clock every timing in xfbench reads: CLOCK_MONOTONIC, in
// nanoseconds (never steps back, unaffected by the wall clock being set).
#ifndef XF_CLOCK_H
#define XF_CLOCK_H

#include <time.h>

static inline double xf_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

#endif
