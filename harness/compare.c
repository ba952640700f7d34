// xfbench compare (compare.h). A case is a row's stage, variant, shape and
// thread count (the CSV columns before reps); its time in a file is the
// median of the median_ns of its passed rows (sweeps repeat cases). Rows
// that failed their check carry no time and are left out, and counted.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "options.h"

enum { MAX_FIELDS = 64, LINE = 4096 };

// The CSV columns that make up a case, and those read.
static const char *const KEY[] = {"stage", "variant", "batch", "heads", "dk", "seq_q", "seq_k",
                                  "d_model", "d_ff", "layers", "n", "k", "relu", "pad", "causal", "threads"};
enum { NKEY = sizeof KEY / sizeof KEY[0] };

typedef struct {
    char key[512];  // KEY fields joined by ','
    char shape[400]; // for the table: the fields after stage and variant
    char stage[32], variant[64];
    double *ns;
    int n, cap;
} run_case;

typedef struct {
    run_case *c;
    int n, cap, failed_rows;
} run;

// Splits one CSV line in place (double quotes, no quote escapes: what
// xfbench writes). Returns the number of fields, -1 if malformed.
static int split(char *line, char **field)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == MAX_FIELDS) return -1;
        if (*p == '"') {
            field[n++] = ++p;
            p = strchr(p, '"');
            if (!p) return -1;
            *p++ = '\0';
            if (*p != ',' && *p != '\0') return -1;
        } else {
            field[n++] = p;
            p += strcspn(p, ",");
        }
        if (*p != ',') break;
        *p++ = '\0';
    }
    return n;
}

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

static void load(const char *path, run *r)
{
    FILE *f = fopen(path, "r");
    if (!f) xf_die_usage("compare: cannot open '%s'", path);
    char head[LINE], line[LINE], *names[MAX_FIELDS], *v[MAX_FIELDS];
    if (!fgets(head, sizeof head, f)) xf_die_usage("compare: '%s' is empty", path);
    head[strcspn(head, "\r\n")] = '\0';
    const int nh = split(head, names);
    int key_col[NKEY], ns_col = nh > 0 ? column(names, nh, "median_ns") : -1;
    int passed_col = nh > 0 ? column(names, nh, "passed") : -1;
    // The stage's own description tells apart what the columns above do
    // not (decode_layer's depth, generate's vocab); CSVs before it lack it.
    const int shape_col = nh > 0 ? column(names, nh, "shape") : -1;
    for (int i = 0; i < NKEY; i++)
        if ((key_col[i] = nh > 0 ? column(names, nh, KEY[i]) : -1) < 0)
            xf_die_usage("compare: '%s' is not an xfbench CSV (no '%s' column)", path, KEY[i]);
    if (ns_col < 0 || passed_col < 0) xf_die_usage("compare: '%s' is not an xfbench CSV (no median_ns or passed)", path);
    for (int lineno = 2; fgets(line, sizeof line, f); lineno++) {
        if (!strchr(line, '\n') && !feof(f)) xf_die_usage("compare: %s:%d: line too long", path, lineno);
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0]) continue;
        if (split(line, v) != nh) xf_die_usage("compare: %s:%d: %s fields, the header has %d", path, lineno,
                                               "a different number of", nh);
        if (strcmp(v[passed_col], "1")) { // failed its check: no time to compare
            r->failed_rows++;
            continue;
        }
        char *end;
        double ns = strtod(v[ns_col], &end);
        if (end == v[ns_col] || *end || !(ns > 0)) xf_die_usage("compare: %s:%d: median_ns '%s' is not a time", path, lineno, v[ns_col]);
        char key[512] = "", shape[400] = "";
        for (int i = 0; i < NKEY; i++) {
            size_t len = strlen(key);
            snprintf(key + len, sizeof key - len, "%s%s", i ? "," : "", v[key_col[i]]);
            // The table shows the shape without the columns a stage leaves 0.
            if (i >= 2 && (strcmp(v[key_col[i]], "0") || !strcmp(KEY[i], "causal") || !strcmp(KEY[i], "relu"))) {
                len = strlen(shape);
                snprintf(shape + len, sizeof shape - len, "%s%s=%s", len ? " " : "", KEY[i], v[key_col[i]]);
            }
        }
        if (shape_col >= 0) {
            size_t len = strlen(key);
            snprintf(key + len, sizeof key - len, ",%s", v[shape_col]);
            if (!strncmp(v[key_col[0]], "decode", 6) || !strcmp(v[key_col[0]], "generate"))
                snprintf(shape, sizeof shape, "%s", v[shape_col]);
        }
        run_case *c = find_or_add(r, key);
        snprintf(c->stage, sizeof c->stage, "%s", v[key_col[0]]);
        snprintf(c->variant, sizeof c->variant, "%s", v[key_col[1]]);
        snprintf(c->shape, sizeof c->shape, "%s", shape);
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 4;
            double *ns_all = realloc(c->ns, (size_t)c->cap * sizeof *ns_all);
            if (!ns_all) xf_die_usage("compare: out of memory");
            c->ns = ns_all;
        }
        c->ns[c->n++] = ns;
    }
    fclose(f);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(run_case *c)
{
    qsort(c->ns, (size_t)c->n, sizeof *c->ns, by_value);
    return c->n % 2 ? c->ns[c->n / 2] : 0.5 * (c->ns[c->n / 2 - 1] + c->ns[c->n / 2]);
}

int xf_compare_main(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    double fail_below = 0.0;
    int nfiles = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--fail-below")) {
            char *end;
            if (i + 1 == argc) xf_die_usage("compare: --fail-below needs a ratio");
            fail_below = strtod(argv[++i], &end);
            if (*end || !(fail_below > 0 && fail_below < 1e6))
                xf_die_usage("compare: --fail-below: '%s' is not a positive ratio", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            xf_die_usage("compare: unknown option '%s' (usage: xfbench compare A.csv B.csv [--fail-below R])", argv[i]);
        } else if (nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            xf_die_usage("compare: more than two files (usage: xfbench compare A.csv B.csv [--fail-below R])");
        }
    }
    if (nfiles != 2) xf_die_usage("compare: needs two CSV files (usage: xfbench compare A.csv B.csv [--fail-below R])");
    run a = {0}, b = {0};
    load(files[0], &a);
    load(files[1], &b);
    printf("speedup = time in A / time in B (> 1: B is faster); A = %s, B = %s\n", files[0], files[1]);
    printf("%-14s %-16s %-92s %11s %11s %8s\n", "stage", "variant", "case", "A ms", "B ms", "speedup");
    // Geometric means per (stage, variant), in order of first appearance.
    char groups[256][100];
    double log_sum[256] = {0};
    int count[256] = {0}, ngroups = 0, common = 0, only_a = 0;
    for (int i = 0; i < a.n; i++) {
        run_case *ca = &a.c[i], *cb = NULL;
        for (int j = 0; j < b.n && !cb; j++)
            if (!strcmp(b.c[j].key, ca->key)) cb = &b.c[j];
        if (!cb) {
            only_a++;
            continue;
        }
        common++;
        const double ta = median(ca), tb = median(cb), s = ta / tb;
        printf("%-14s %-16s %-92s %11.5g %11.5g %7.3fx\n", ca->stage, ca->variant, ca->shape, ta / 1e6, tb / 1e6, s);
        char g[100];
        snprintf(g, sizeof g, "%s %s", ca->stage, ca->variant);
        int k = 0;
        while (k < ngroups && strcmp(groups[k], g)) k++;
        if (k == ngroups && ngroups < 256) snprintf(groups[ngroups++], sizeof groups[0], "%s", g);
        if (k < 256) log_sum[k] += log(s), count[k]++;
    }
    if (!common) xf_die_usage("compare: %s and %s have no case in common", files[0], files[1]);
    printf("\ngeometric mean speedup per stage and variant:\n");
    int below = 0;
    for (int k = 0; k < ngroups; k++) {
        const double gm = exp(log_sum[k] / count[k]);
        const int bad = fail_below > 0 && gm < fail_below;
        below += bad;
        printf("  %-32s %7.3fx over %d case(s)%s\n", groups[k], gm, count[k], bad ? "  BELOW --fail-below" : "");
    }
    printf("%d case(s) in common, %d only in A, %d only in B; rows that failed their check (not compared): %d in A, %d in B\n",
           common, only_a, b.n - common, a.failed_rows, b.failed_rows);
    for (int i = 0; i < a.n; i++) free(a.c[i].ns);
    for (int i = 0; i < b.n; i++) free(b.c[i].ns);
    free(a.c), free(b.c);
    if (below) {
        printf("compare: %d geometric mean(s) below %g\n", below, fail_below);
        return 1;
    }
    return 0;
}
