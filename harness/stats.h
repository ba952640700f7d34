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

// One case's samples in one file: x[0..n), in rows (runs) starting at
// starts[0..rows) (rows 1, starts NULL: one run).
typedef struct {
    const double *x;
    int n;
    const int *starts;
    int rows;
} xf_samples;

typedef struct {
    double median_a, median_b;
    double ratio;  // median_a / median_b: the speedup of B over A
    double lo, hi; // its 95% percentile-bootstrap interval
} xf_ratio_stats;

// The median of x[0..n), n >= 1 (x is reordered).
double xf_median(double *x, int n);

// Resamples to draw when the compared cases hold `samples` in all: 2000
// (the 2.5% and 97.5% percentiles then rest on 50 replicates each) unless
// that would take more than a few seconds, never under 200.
int xf_bootstrap_count(double samples);

// The ratio of the medians of a's and b's samples and its interval from
// nboot replicates (rng seeded by the caller); rep receives the nboot
// replicate ratios. A side of one row is resampled sample by sample; a
// side of several rows (runs, rounds) row by row, each drawn row whole:
// samples of one run share its machine state, so the spread between runs
// is what the interval must carry, and resampling their samples one by
// one would hide it (the cluster bootstrap, Davison and Hinkley 1997,
// section 3.8).
void xf_ratio_of_medians(const xf_samples *a, const xf_samples *b, int nboot, xf_rng *rng, double *rep,
                         xf_ratio_stats *out);

// Whether a is level with b (the faster, by median) for --variant best's
// choice (harness/best.c): a's median at most 1 + margin times b's AND
// the 95% interval of their ratio (500 replicates, seed 1: the same
// samples, the same answer) reaching 1. The interval alone is not enough:
// a race of three rounds of one whole pass each gives intervals so wide
// that they reached 1 for passes 7-17% slower.
int xf_level_with(const xf_samples *a, const xf_samples *b, double margin);

// The 2.5% and 97.5% percentiles of x[0..n) (reordered).
void xf_percentile_interval(double *x, int n, double *lo, double *hi);

// Runs as the units: when both sides hold several rows, the Welch t test
// on the logs of the rows' medians (two-sided p) and the matching 95%
// interval of the ratio exp(mean log median_a - mean log median_b).
// Samples of one run share its machine state; its drift is variance the
// samples cannot show, and only more runs can shrink it.
void xf_welch_rows(const xf_samples *a, const xf_samples *b, double *p, double *lo, double *hi);

// Two-sided p-value of the Mann-Whitney U test that a and b come from one
// distribution: exact (the null distribution of U counted) for up to 50
// samples in all without ties, else the normal approximation with tie and
// continuity corrections. 1 when a side is empty.
double xf_mann_whitney_p(const double *a, int na, const double *b, int nb);

#endif
