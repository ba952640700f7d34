// The statistics of xfbench compare: a bootstrap interval for the ratio
// of two medians and the Mann-Whitney U test, on the per-call samples of
// one case in two runs (docs/design.md, "Trusting a number").
#ifndef XF_STATS_H
#define XF_STATS_H

#include "rng.h"

// A case is called faster or slower only when its 95% interval excludes 1
// AND the Mann-Whitney p-value is below this. Why 0.01 and not 0.05: a
// comparison holds tens of cases, and at 5% per case an A/A comparison of
// 40 cases would call two of them on average (three or more a third of the
// time); at 1% it calls 0.4 (three or more under 1% of the time). Five
// samples a side can still be called: their smallest exact two-sided p,
// complete separation, is 2/252 = 0.0079.
#define XF_CALL_ALPHA 0.01

typedef struct {
    double median_a, median_b;
    double ratio;  // median_a / median_b: the speedup of B over A
    double lo, hi; // its 95% percentile-bootstrap interval
} xf_ratio_stats;

// Resamples to draw when the compared cases hold `samples` in all: 2000
// (the 2.5% and 97.5% percentiles then rest on 50 replicates each) unless
// that would take more than a few seconds, never under 200.
int xf_bootstrap_count(double samples);

// The ratio of medians of a[0..na) and b[0..nb) and its interval from
// nboot replicates (each side resampled with replacement, rng seeded by
// the caller); rep receives the nboot replicate ratios.
void xf_ratio_of_medians(const double *a, int na, const double *b, int nb, int nboot, xf_rng *rng, double *rep,
                         xf_ratio_stats *out);

// The 2.5% and 97.5% percentiles of x[0..n) (reordered).
void xf_percentile_interval(double *x, int n, double *lo, double *hi);

// Two-sided p-value of the Mann-Whitney U test that a and b come from one
// distribution: exact (the null distribution of U counted) for up to 50
// samples in all without ties, else the normal approximation with tie and
// continuity corrections. 1 when a side is empty.
double xf_mann_whitney_p(const double *a, int na, const double *b, int nb);

#endif
