#include <stdlib.h>
#include <string.h>

#include "../variants/isa/clock.h"
#include "timer.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Caps the sample count so a 1 us kernel with a long --min-time cannot
// allocate without bound.
enum { MAX_REPS = 1 << 20 };

void xf_time(xf_runner *r, xf_instance *in, const xf_timer_opts *o, xf_timing *t)
{
    // Warm-up: caches, page faults of the outputs, CPU clock ramp. At least
    // one call, until a tenth of the measuring time has passed (at most 3 s).
    double warm_until = xf_now_ns() + 1e9 * (o->min_time_s / 10 < 3 ? o->min_time_s / 10 : 3);
    if (!o->no_warmup) do
            xf_runner_run(r, in);
        while (xf_now_ns() < warm_until);

    // The per-stage breakdown of a composition counts timed runs only.
    memset(r->ex.stage_ns, 0, sizeof r->ex.stage_ns);
    memset(r->ex.stage_calls, 0, sizeof r->ex.stage_calls);
    int cap = 64, n = 0;
    double *s = malloc((size_t)cap * sizeof *s), spent = 0.0;
    xf_snapshot before, after;
    xf_snapshot_take(&before, 0);
    while ((spent < o->min_time_s * 1e9 || n < o->min_reps) && n < MAX_REPS) {
        double t0 = xf_now_ns();
        xf_runner_run(r, in);
        double dt = xf_now_ns() - t0;
        if (n == cap) s = realloc(s, (size_t)(cap *= 2) * sizeof *s);
        s[n++] = dt;
        spent += dt;
    }
    xf_snapshot_take(&after, 1);
    xf_contention_of(&before, &after, &t->state);
    t->attempts = 1, t->set_aside[0] = '\0';
    t->samples = malloc((size_t)n * sizeof *t->samples);
    memcpy(t->samples, s, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    t->reps = n;
    t->min_ns = s[0];
    t->median_ns = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    t->p10_ns = s[n / 10];
    t->p90_ns = s[n - 1 - n / 10];
    t->spread_pct = 100.0 * (t->p90_ns - t->p10_ns) / t->median_ns;
    free(s);
}

void xf_timing_free(xf_timing *t)
{
    free(t->samples);
    t->samples = NULL;
}
