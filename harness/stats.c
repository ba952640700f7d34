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

double xf_median(double *x, int n)
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

// One replicate of a side into out (room for the side's rows x its
// longest row); returns how many samples it drew.
static int resample_side(const xf_samples *s, xf_rng *rng, double *out)
{
    if (s->rows <= 1) {
        resample(s->x, s->n, rng, out);
        return s->n;
    }
    int n = 0;
    for (int r = 0; r < s->rows; r++) {
        const int row = (int)((uint64_t)(xf_rng_next(rng) >> 32) * (uint64_t)s->rows >> 32);
        const int end = row + 1 < s->rows ? s->starts[row + 1] : s->n;
        memcpy(out + n, s->x + s->starts[row], (size_t)(end - s->starts[row]) * sizeof *out);
        n += end - s->starts[row];
    }
    return n;
}

static int room(const xf_samples *s)
{
    int longest = s->rows <= 1 ? s->n : 0;
    for (int r = 0; s->rows > 1 && r < s->rows; r++) {
        const int end = r + 1 < s->rows ? s->starts[r + 1] : s->n;
        if (end - s->starts[r] > longest) longest = end - s->starts[r];
    }
    return (s->rows > 1 ? s->rows : 1) * longest;
}

void xf_ratio_of_medians(const xf_samples *a, const xf_samples *b, int nboot, xf_rng *rng, double *rep,
                         xf_ratio_stats *out)
{
    const int ra = room(a), rb = room(b);
    double *buf = malloc((size_t)(ra > rb ? ra : rb) * sizeof *buf);
    memcpy(buf, a->x, (size_t)a->n * sizeof *buf);
    out->median_a = xf_median(buf, a->n);
    memcpy(buf, b->x, (size_t)b->n * sizeof *buf);
    out->median_b = xf_median(buf, b->n);
    out->ratio = out->median_a / out->median_b;
    for (int r = 0; r < nboot; r++) {
        int n = resample_side(a, rng, buf);
        const double ma = xf_median(buf, n);
        n = resample_side(b, rng, buf);
        rep[r] = ma / xf_median(buf, n);
    }
    free(buf);
    double *sorted = malloc((size_t)nboot * sizeof *sorted);
    memcpy(sorted, rep, (size_t)nboot * sizeof *sorted);
    xf_percentile_interval(sorted, nboot, &out->lo, &out->hi);
    free(sorted);
}

int xf_level_with(const xf_samples *a, const xf_samples *b, double margin)
{
    enum { NBOOT = 500 };
    double rep[NBOOT];
    xf_rng rng = {.s = 1};
    xf_ratio_stats st;
    xf_ratio_of_medians(a, b, NBOOT, &rng, rep, &st);
    return st.ratio <= 1.0 + margin && st.lo <= 1.0;
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

// The regularized incomplete beta I_x(a, b) by its continued fraction
// (Lentz's method; Abramowitz and Stegun 26.5.8), for the t distribution.
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (fabs(d) < tiny ? tiny : d);
    double f = d;
    for (int m = 1; m <= 300; m++) {
        for (int odd = 0; odd < 2; odd++) {
            const double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0))
                                   : m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
            d = 1.0 + num * d;
            d = 1.0 / (fabs(d) < tiny ? tiny : d);
            c = 1.0 + num / c;
            if (fabs(c) < tiny) c = tiny;
            f *= c * d;
            if (odd && fabs(c * d - 1.0) < 1e-15) return f;
        }
    }
    return f;
}

static double inc_beta(double a, double b, double x)
{
    if (x <= 0) return 0.0;
    if (x >= 1) return 1.0;
    const double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    return x < (a + 1.0) / (a + b + 2.0) ? front * beta_cf(a, b, x) / a : 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

// P(|T| > t) for Student's t with df degrees of freedom.
static double t_two_sided(double t, double df) { return inc_beta(0.5 * df, 0.5, df / (df + t * t)); }

// The t with P(|T| > t) = alpha, by bisection (monotone in t).
static double t_quantile(double alpha, double df)
{
    double lo = 0.0, hi = 1e6;
    for (int i = 0; i < 200; i++) {
        const double mid = 0.5 * (lo + hi);
        if (t_two_sided(mid, df) > alpha) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

// Mean and variance of the logs of the rows' medians.
static void log_row_medians(const xf_samples *s, double *mean, double *var)
{
    double *buf = malloc((size_t)s->n * sizeof *buf), sum = 0.0, sq = 0.0;
    for (int r = 0; r < s->rows; r++) {
        const int end = r + 1 < s->rows ? s->starts[r + 1] : s->n, len = end - s->starts[r];
        memcpy(buf, s->x + s->starts[r], (size_t)len * sizeof *buf);
        const double l = log(xf_median(buf, len));
        sum += l, sq += l * l;
    }
    free(buf);
    *mean = sum / s->rows;
    *var = s->rows > 1 ? (sq - sum * sum / s->rows) / (s->rows - 1) : 0.0;
    if (*var < 0) *var = 0.0;
}

void xf_welch_rows(const xf_samples *a, const xf_samples *b, double *p, double *lo, double *hi)
{
    double ma, va, mb, vb;
    log_row_medians(a, &ma, &va);
    log_row_medians(b, &mb, &vb);
    const double ea = va / a->rows, eb = vb / b->rows, se = sqrt(ea + eb), diff = ma - mb;
    if (!(se > 0)) { // every row alike on both sides: the difference is what it is
        *p = diff != 0.0 ? 0.0 : 1.0;
        *lo = *hi = exp(diff);
        return;
    }
    // Welch-Satterthwaite degrees of freedom.
    const double df = (ea + eb) * (ea + eb) /
                      ((a->rows > 1 ? ea * ea / (a->rows - 1) : 0.0) + (b->rows > 1 ? eb * eb / (b->rows - 1) : 0.0));
    *p = t_two_sided(fabs(diff) / se, df);
    const double half = t_quantile(0.05, df) * se;
    *lo = exp(diff - half), *hi = exp(diff + half);
}
