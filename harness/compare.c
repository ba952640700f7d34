// xfbench compare (compare.h). A case is a row's stage, variant, shape and
// thread count (the CSV columns before reps, and the shape description);
// its samples in a file are every timed call of its passed rows
// (samples_ns; a CSV from before that column: each row's median_ns as one
// sample). Rows that failed their check carry no time and are left out,
// and counted; so are rows measured while contended (counted, kept).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "csv.h"
#include "options.h"
#include "rng.h"
#include "stats.h"

// The CSV columns that make up a case, and those read.
static const char *const KEY[] = {"stage", "variant", "batch", "heads", "dk", "seq_q", "seq_k",
                                  "d_model", "d_ff", "layers", "n", "k", "relu", "pad", "causal", "threads"};
enum { NKEY = sizeof KEY / sizeof KEY[0] };

typedef struct {
    char key[512];   // KEY fields joined by ',', and the shape description
    char shape[400]; // for the table: the fields after stage and variant
    char stage[32], variant[64];
    double *ns;
    int n, cap;
    int *starts, rows, rows_cap; // where each row's samples begin in ns
} run_case;

typedef struct {
    run_case *c;
    int n, cap, failed_rows, contended_rows;
} run;

static int column(char **names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return i;
    return -1;
}

static run_case *find_or_add(run *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->c[i].key, key)) return &r->c[i];
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        run_case *c = realloc(r->c, (size_t)r->cap * sizeof *c);
        if (!c) xf_die_usage("compare: out of memory");
        r->c = c;
    }
    run_case *c = &r->c[r->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->key, sizeof c->key, "%s", key);
    return c;
}

static void add_sample(run_case *c, double ns)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        double *ns_all = realloc(c->ns, (size_t)c->cap * sizeof *ns_all);
        if (!ns_all) xf_die_usage("compare: out of memory");
        c->ns = ns_all;
    }
    c->ns[c->n++] = ns;
}

static double parse_time(const char *s, const char *path, int lineno, const char *what)
{
    char *end;
    double ns = strtod(s, &end);
    if (end == s || *end || !(ns > 0) || ns > 1e18)
        xf_die_usage("compare: %s:%d: %s '%.40s' is not a time", path, lineno, what, s);
    return ns;
}

// Adds a row's samples_ns ("812;790;..."), or its median_ns if it has none.
static void add_samples(run_case *c, char *samples, const char *median, const char *path, int lineno)
{
    if (!samples || !*samples) {
        add_sample(c, parse_time(median, path, lineno, "median_ns"));
        return;
    }
    for (char *p = samples; *p;) {
        size_t len = strcspn(p, ";");
        const int last = p[len] == '\0';
        p[len] = '\0';
        add_sample(c, parse_time(p, path, lineno, "a sample in samples_ns"));
        p += len + !last;
    }
}

// A row's case: key, the fields that tell cases apart (v[key_col[i]] for
// each KEY column, then the shape column where there is one); shape, what
// the table shows of it.
static void case_key(char **v, const int *key_col, int shape_col, char *key, size_t key_size, char *shape,
                     size_t shape_size)
{
    for (int i = 0; i < NKEY; i++) {
        size_t len = strlen(key);
        snprintf(key + len, key_size - len, "%s%s", i ? "," : "", v[key_col[i]]);
        // The table shows the shape without the columns a stage leaves 0.
        if (i >= 2 && (strcmp(v[key_col[i]], "0") || !strcmp(KEY[i], "causal") || !strcmp(KEY[i], "relu"))) {
            len = strlen(shape);
            snprintf(shape + len, shape_size - len, "%s%s=%s", len ? " " : "", KEY[i], v[key_col[i]]);
        }
    }
    // The stage's own description tells apart what the columns above do
    // not (decode_layer's depth, generate's vocab, the dtype).
    if (shape_col >= 0) {
        size_t len = strlen(key);
        snprintf(key + len, key_size - len, ",%s", v[shape_col]);
        if (!strncmp(v[key_col[0]], "decode", 6) || !strcmp(v[key_col[0]], "generate") || strstr(v[shape_col], "dtype="))
            snprintf(shape, shape_size, "%s", v[shape_col]);
    }
}

// Reads one CSV into r: each passed row's samples under its case.
static void load(const char *path, run *r)
{
    FILE *f = fopen(path, "r");
    if (!f) xf_die_usage("compare: cannot open '%s'", path);
    char *head = NULL, *line = NULL, *names[XF_CSV_MAX_FIELDS], *v[XF_CSV_MAX_FIELDS];
    size_t head_cap = 0, line_cap = 0;
    if (getline(&head, &head_cap, f) < 0) xf_die_usage("compare: '%s' is empty", path);
    head[strcspn(head, "\r\n")] = '\0';
    const int nh = xf_csv_split(head, names, NULL);
    int key_col[NKEY], ns_col = nh > 0 ? column(names, nh, "median_ns") : -1;
    int passed_col = nh > 0 ? column(names, nh, "passed") : -1;
    // Optional columns: CSVs from older versions lack them.
    const int shape_col = nh > 0 ? column(names, nh, "shape") : -1;
    const int samples_col = nh > 0 ? column(names, nh, "samples_ns") : -1;
    const int contended_col = nh > 0 ? column(names, nh, "contended") : -1;
    for (int i = 0; i < NKEY; i++)
        if ((key_col[i] = nh > 0 ? column(names, nh, KEY[i]) : -1) < 0)
            xf_die_usage("compare: '%s' is not an xfbench CSV (no '%s' column)", path, KEY[i]);
    if (ns_col < 0 || passed_col < 0) xf_die_usage("compare: '%s' is not an xfbench CSV (no median_ns or passed)", path);
    for (int lineno = 2; getline(&line, &line_cap, f) >= 0; lineno++) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0]) continue;
        if (xf_csv_split(line, v, NULL) != nh)
            xf_die_usage("compare: %s:%d: a different number of fields than the header's %d", path, lineno, nh);
        if (strcmp(v[passed_col], "1")) { // failed its check: no time to compare
            r->failed_rows++;
            continue;
        }
        if (contended_col >= 0 && !strcmp(v[contended_col], "1")) r->contended_rows++;
        char key[512] = "", shape[400] = "";
        case_key(v, key_col, shape_col, key, sizeof key, shape, sizeof shape);
        run_case *c = find_or_add(r, key);
        snprintf(c->stage, sizeof c->stage, "%s", v[key_col[0]]);
        snprintf(c->variant, sizeof c->variant, "%s", v[key_col[1]]);
        snprintf(c->shape, sizeof c->shape, "%s", shape);
        if (c->rows == c->rows_cap) {
            c->rows_cap = c->rows_cap ? 2 * c->rows_cap : 4;
            int *starts = realloc(c->starts, (size_t)c->rows_cap * sizeof *starts);
            if (!starts) xf_die_usage("compare: out of memory");
            c->starts = starts;
        }
        c->starts[c->rows++] = c->n;
        add_samples(c, samples_col >= 0 ? v[samples_col] : NULL, v[ns_col], path, lineno);
    }
    free(head);
    free(line);
    fclose(f);
}

static const char USAGE[] = "usage: xfbench compare A.csv B.csv [--fail-below R] [--seed N]";

// One (stage, variant): its cases' bootstrap log-speedups, summed per
// replicate, give the geometric mean's interval (cases are independent).
typedef struct {
    char name[100];
    double log_sum, *rep_sum;
    int count;
} group;

typedef struct {
    const char *files[2];
    double fail_below; // 0: no gate
    unsigned long long seed;
} compare_options;

static compare_options parse_compare_options(int argc, char **argv)
{
    compare_options o = {{NULL, NULL}, 0.0, 1};
    int nfiles = 0;
    for (int i = 0; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--fail-below")) {
            if (i + 1 == argc) xf_die_usage("compare: --fail-below needs a ratio");
            o.fail_below = strtod(argv[++i], &end);
            if (*end || !(o.fail_below > 0 && o.fail_below < 1e6))
                xf_die_usage("compare: --fail-below: '%s' is not a positive ratio", argv[i]);
        } else if (!strcmp(argv[i], "--seed")) {
            if (i + 1 == argc) xf_die_usage("compare: --seed needs a whole number");
            o.seed = strtoull(argv[++i], &end, 10);
            if (*end || !*argv[i] || argv[i][0] == '-') xf_die_usage("compare: --seed: '%s' is not a whole number", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            xf_die_usage("compare: unknown option '%s' (%s)", argv[i], USAGE);
        } else if (nfiles < 2) {
            o.files[nfiles++] = argv[i];
        } else {
            xf_die_usage("compare: more than two files (%s)", USAGE);
        }
    }
    if (nfiles != 2) xf_die_usage("compare: needs two CSV files (%s)", USAGE);
    return o;
}

// What the cases add up to: the verdicts, and each stage and variant's
// log ratios (the point and every bootstrap replicate) for its geometric mean.
typedef struct {
    group *groups;
    int ngroups, faster, slower, below;
    int nboot;
} tallies;

// One case of A against its pair in B: the ratio of medians with its
// interval and p, the verdict, one printed line; rep holds the replicates.
static void compare_case(const run_case *ca, const run_case *cb, const compare_options *o, xf_rng *rng, double *rep,
                         tallies *t)
{
    xf_ratio_stats st;
    const xf_samples sa = {ca->ns, ca->n, ca->starts, ca->rows}, sb = {cb->ns, cb->n, cb->starts, cb->rows};
    xf_ratio_of_medians(&sa, &sb, t->nboot, rng, rep, &st);
    double p = xf_mann_whitney_p(ca->ns, ca->n, cb->ns, cb->n);
    // Several runs on both sides: the runs are the units.
    if (ca->rows > 1 && cb->rows > 1) xf_welch_rows(&sa, &sb, &p, &st.lo, &st.hi);
    const char *verdict = st.lo > 1.0 && p < XF_CALL_ALPHA ? "faster" : st.hi < 1.0 && p < XF_CALL_ALPHA ? "slower" : "same";
    t->faster += verdict[0] == 'f', t->slower += verdict[0] == 's' && verdict[1] == 'l';
    const int bad = o->fail_below > 0 && st.hi < o->fail_below;
    t->below += bad;
    char interval[40];
    snprintf(interval, sizeof interval, "[%.3f, %.3f]", st.lo, st.hi);
    char na[24], nb[24]; // samples, and rows when more than one
    snprintf(na, sizeof na, ca->rows > 1 ? "%dx%d" : "%d", ca->rows > 1 ? ca->rows : ca->n, ca->n / ca->rows);
    snprintf(nb, sizeof nb, cb->rows > 1 ? "%dx%d" : "%d", cb->rows > 1 ? cb->rows : cb->n, cb->n / cb->rows);
    printf("%-14s %-16s %-70s %9s %9s %10.5g %10.5g %7.3fx %-17s %8.2g %s%s\n", ca->stage, ca->variant, ca->shape, na,
           nb, st.median_a / 1e6, st.median_b / 1e6, st.ratio, interval, p, verdict, bad ? "  BELOW --fail-below" : "");
    char g[100];
    snprintf(g, sizeof g, "%s %s", ca->stage, ca->variant);
    int k = 0;
    while (k < t->ngroups && strcmp(t->groups[k].name, g)) k++;
    if (k == t->ngroups) {
        snprintf(t->groups[t->ngroups].name, sizeof t->groups[0].name, "%s", g);
        t->groups[t->ngroups++].rep_sum = calloc((size_t)t->nboot, sizeof(double));
    }
    t->groups[k].log_sum += log(st.ratio), t->groups[k].count++;
    for (int r = 0; r < t->nboot; r++) t->groups[k].rep_sum[r] += log(rep[r]);
}

// The geometric mean of each stage and variant's ratios, its interval
// from the replicates' geometric means.
static void print_geometric_means(tallies *t, const compare_options *o)
{
    printf("\ngeometric mean speedup per stage and variant, with its 95%% interval:\n");
    for (int k = 0; k < t->ngroups; k++) {
        group *g = &t->groups[k];
        for (int r = 0; r < t->nboot; r++) g->rep_sum[r] = exp(g->rep_sum[r] / g->count);
        double lo, hi;
        xf_percentile_interval(g->rep_sum, t->nboot, &lo, &hi);
        const double gm = exp(g->log_sum / g->count);
        const int bad = o->fail_below > 0 && hi < o->fail_below;
        t->below += bad;
        printf("  %-32s %7.4fx [%.4f, %.4f] over %d case(s)%s\n", g->name, gm, lo, hi, g->count,
               bad ? "  BELOW --fail-below" : "");
        free(g->rep_sum);
    }
}

int xf_compare_main(int argc, char **argv)
{
    const compare_options o = parse_compare_options(argc, argv);
    run a = {0}, b = {0};
    load(o.files[0], &a);
    load(o.files[1], &b);
    // Pair the cases; size the bootstrap so it stays within a few seconds
    // however many samples the files hold.
    int *pair = malloc((size_t)(a.n ? a.n : 1) * sizeof *pair), common = 0;
    double total = 0.0;
    for (int i = 0; i < a.n; i++) {
        pair[i] = -1;
        for (int j = 0; j < b.n && pair[i] < 0; j++)
            if (!strcmp(b.c[j].key, a.c[i].key)) pair[i] = j;
        if (pair[i] >= 0) common++, total += a.c[i].n + b.c[pair[i]].n;
    }
    if (!common) xf_die_usage("compare: %s and %s have no case in common", o.files[0], o.files[1]);
    tallies t = {calloc((size_t)common, sizeof *t.groups), 0, 0, 0, 0, xf_bootstrap_count(total)};
    printf("speedup = time in A / time in B (> 1: B is faster); A = %s, B = %s\n", o.files[0], o.files[1]);
    printf("95%% interval: bootstrap of the ratio of medians, %d resamples, --seed %llu (a file's several rows of a case,\n"
           "n = rows x samples a row, resampled a whole row at a time); p: Mann-Whitney U, two-sided. Several rows\n"
           "(runs) in both files: the runs are the units, interval and p from Welch's t on the logs of the rows' medians.\n"
           "A case is faster or slower only if its interval excludes 1 and p < %g, else same (within noise)\n",
           t.nboot, o.seed, XF_CALL_ALPHA);
    printf("%-14s %-16s %-70s %9s %9s %10s %10s %8s %-17s %8s %s\n", "stage", "variant", "case", "n_A", "n_B", "A ms",
           "B ms", "speedup", "95% interval", "p", "verdict");
    xf_rng rng = {o.seed};
    double *rep = malloc((size_t)t.nboot * sizeof *rep);
    for (int i = 0; i < a.n; i++)
        if (pair[i] >= 0) compare_case(&a.c[i], &b.c[pair[i]], &o, &rng, rep, &t);
    print_geometric_means(&t, &o);
    printf("%d case(s) in common: %d faster, %d slower, %d same within noise; %d only in A, %d only in B\n"
           "rows that failed their check (not compared): %d in A, %d in B; rows measured while contended: %d in A, %d in B\n",
           common, t.faster, t.slower, common - t.faster - t.slower, a.n - common, b.n - common, a.failed_rows,
           b.failed_rows, a.contended_rows, b.contended_rows);
    for (int i = 0; i < a.n; i++) free(a.c[i].ns), free(a.c[i].starts);
    for (int i = 0; i < b.n; i++) free(b.c[i].ns), free(b.c[i].starts);
    free(a.c), free(b.c), free(pair), free(rep), free(t.groups);
    if (t.below) {
        printf("compare: %d interval(s) wholly below %g\n", t.below, o.fail_below);
        return 1;
    }
    return 0;
}
