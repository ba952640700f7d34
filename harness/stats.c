#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int xf_bootstrap_count(double samples)
{
    // About 10 ns per drawn sample: 4e8 draws in all is a few seconds.
    double n = samples > 0 ? 4e8 / samples : 2000;
    return n > 2000 ? 2000 : n < 200 ? 200 : (int)n;
}

// The k-th smallest of x[0..n) (Hoare's selection; x is reordered so that
// x[0..k) <= x[k] <= x[k+1..n)).
static double select_kth(double *x, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const double pivot = x[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot) i++;
            while (x[j] > pivot) j--;
            if (i <= j) {
                double t = x[i];
                x[i++] = x[j], x[j--] = t;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return x[k];
}

static double median_of(double *x, int n)
{
    const double upper = select_kth(x, n, n / 2);
    if (n % 2) return upper;
    double lower = x[0]; // the largest of x[0..n/2), all <= upper
    for (int i = 1; i < n / 2; i++)
        if (x[i] > lower) lower = x[i];
    return 0.5 * (lower + upper);
}

// n draws from x with replacement into out (multiply-shift: unbiased
// enough at 2^32 for any sample count here).
static void resample(const double *x, int n, xf_rng *rng, double *out)
{
    for (int i = 0; i < n; i++) out[i] = x[(uint64_t)(xf_rng_next(rng) >> 32) * (uint64_t)n >> 32];
}

static int by_value(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

void xf_percentile_interval(double *x, int n, double *lo, double *hi)
{
    qsort(x, (size_t)n, sizeof *x, by_value);
    // Nearest rank: the replicates at 2.5% and 97.5% of the sorted list.
    int l = (int)floor(0.025 * n), h = (int)ceil(0.975 * n) - 1;
    if (h >= n) h = n - 1;
    *lo = x[l], *hi = x[h];
}

void xf_ratio_of_medians(const double *a, int na, const double *b, int nb, int nboot, xf_rng *rng, double *rep,
                         xf_ratio_stats *out)
{
    double *buf = malloc((size_t)(na > nb ? na : nb) * sizeof *buf);
    memcpy(buf, a, (size_t)na * sizeof *buf);
    out->median_a = median_of(buf, na);
    memcpy(buf, b, (size_t)nb * sizeof *buf);
    out->median_b = median_of(buf, nb);
    out->ratio = out->median_a / out->median_b;
    for (int r = 0; r < nboot; r++) {
        resample(a, na, rng, buf);
        const double ma = median_of(buf, na);
        resample(b, nb, rng, buf);
        rep[r] = ma / median_of(buf, nb);
    }
    free(buf);
    double *sorted = malloc((size_t)nboot * sizeof *sorted);
    memcpy(sorted, rep, (size_t)nboot * sizeof *sorted);
    xf_percentile_interval(sorted, nboot, &out->lo, &out->hi);
    free(sorted);
}

typedef struct {
    double v;
    int from_a;
} ranked;

static int by_rank_value(const void *p, const void *q)
{
    const ranked *x = p, *y = q;
    return (x->v > y->v) - (x->v < y->v);
}

// P(U <= u) and P(U >= u) under the null for sizes m and n, from the
// counts of U's values: the coefficients of the Gaussian binomial
// [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) (Mann and
// Whitney 1947). Counts stay below C(50,25) ~ 1.3e14 < 2^53: exact doubles.
static double exact_p(int m, int n, double u)
{
    const int top = m * n;
    double *c = calloc((size_t)top + 1 + n + m + 1, sizeof *c);
    int deg = 0;
    c[0] = 1.0;
    for (int i = 1; i <= m; i++) {
        for (int k = deg; k >= 0; k--) c[k + n + i] -= c[k];
        deg += n + i;
        for (int k = i; k <= deg; k++) c[k] += c[k - i];
        deg -= i;
    }
    double total = 0.0, le = 0.0, ge = 0.0;
    for (int k = 0; k <= top; k++) {
        total += c[k];
        if (k <= u) le += c[k];
        if (k >= u) ge += c[k];
    }
    free(c);
    const double p = 2.0 * (le < ge ? le : ge) / total;
    return p > 1.0 ? 1.0 : p;
}

double xf_mann_whitney_p(const double *a, int na, const double *b, int nb)
{
    if (na < 1 || nb < 1) return 1.0;
    const int n = na + nb;
    ranked *r = malloc((size_t)n * sizeof *r);
    for (int i = 0; i < na; i++) r[i] = (ranked){a[i], 1};
    for (int i = 0; i < nb; i++) r[na + i] = (ranked){b[i], 0};
    qsort(r, (size_t)n, sizeof *r, by_rank_value);
    // Ties share the mean of their ranks; sum (t^3 - t) corrects the variance.
    double rank_sum_a = 0.0, tie_term = 0.0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && r[j].v == r[i].v) j++;
        const double t = j - i, mean_rank = 0.5 * (i + 1 + j);
        for (int k = i; k < j; k++)
            if (r[k].from_a) rank_sum_a += mean_rank;
        tie_term += t * t * t - t;
        i = j;
    }
    free(r);
    const double u = rank_sum_a - 0.5 * na * (na + 1.0);
    if (tie_term == 0.0 && n <= 50) return exact_p(na, nb, u);
    const double mu = 0.5 * na * nb;
    const double var = na * (double)nb / 12.0 * ((n + 1.0) - tie_term / ((double)n * (n - 1.0)));
    if (!(var > 0)) return 1.0;
    const double z = (fabs(u - mu) - 0.5) / sqrt(var);
    return z <= 0 ? 1.0 : erfc(z / sqrt(2.0));
}
