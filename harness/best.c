// The autotune behind --variant best (best.h). A call's key is its stage,
// shape (as the CSV describes it) and thread count; on a miss, every
// available variant of the stage except the naive baseline (never the
// fastest, and minutes at these sizes; a candidate only where nothing else
// can run the stage) is prepared, checked against the
// fp64 reference on a generated instance of the shape, and timed (median
// of >= 3 runs and >= 0.2 s); the fastest that passed is chosen, printed
// with the others' times, and appended to the cache. The cache's first line
// names the build (commit, compiler, families) and machine (CPU, ISA,
// XFBENCH_MAX_ISA cap): if it differs, the file is started afresh.
//
// Calls timed alone do not add up to a pass: composed, the thread pools of
// OpenBLAS (pthreads), oneDNN and xfbench's OpenMP take turns, each
// spinning while another runs (measured on 2 threads, seq 512: the
// per-call winners composed took 534 ms where the omp family's own pass
// took 325). So a compound stage is then settled in context
// (xf_best_resolve): the per-call composition and every family's own pass
// are each checked and timed as whole passes on the instance itself, and
// the fastest is kept (cached under the compound stage's key, "pass").
// The passes are timed in interleaved rounds, each in a rotated order, and
// ranked by the median of their rounds: timed one after the other, a burst
// of noise on this shared machine (spreads of 20-40% seen on a Zen 3 under
// KVM) picked a pass 13-20% slower than the fastest.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "best.h"
#include "check.h"
#include "peak.h"
#include "registry.h"
#include "report.h"
#include "stages/stage.h"
#include "timer.h"

enum { MAX_KEYS = 256 };

typedef struct {
    char key[256], variant[64];
    int shown; // printed in this process
} choice;

static struct {
    xf_ops per_call; // the ops of the per-call composition
    const xf_machine *m;
    xf_pad pad;
    xf_dtype dtype;
    int threads, loaded;
    char path[512], fingerprint[700];
    choice c[MAX_KEYS];
    int n;
} best;

static void make_fingerprint(void)
{
    const char *cap = getenv("XFBENCH_MAX_ISA");
    int len = snprintf(best.fingerprint, sizeof best.fingerprint, "build %s %s |", best.m->commit, best.m->compiler);
    for (int f = 0; f < xf_registry_count() && len < (int)sizeof best.fingerprint; f++)
        len += snprintf(best.fingerprint + len, sizeof best.fingerprint - (size_t)len, " %s", xf_registry_family(f)->name);
    if (len < (int)sizeof best.fingerprint)
        snprintf(best.fingerprint + len, sizeof best.fingerprint - (size_t)len, " | machine %s | %s | cap %s",
                 best.m->cpu, best.m->isa, cap ? cap : "none");
}

static void load(void)
{
    best.loaded = 1;
    xf_cache_path("best.txt", best.path, sizeof best.path);
    make_fingerprint();
    FILE *f = fopen(best.path, "r");
    if (!f) return;
    char line[1024];
    if (fgets(line, sizeof line, f) && !strncmp(line, best.fingerprint, strlen(best.fingerprint)) &&
        line[strlen(best.fingerprint)] == '\n') {
        while (best.n < MAX_KEYS && fgets(line, sizeof line, f)) {
            char *tab = strchr(line, '\t'), *end = tab ? strchr(tab + 1, '\t') : NULL;
            if (!tab || !end) continue;
            *tab = *end = '\0';
            snprintf(best.c[best.n].key, sizeof best.c[best.n].key, "%.255s", line);
            snprintf(best.c[best.n].variant, sizeof best.c[best.n].variant, "%.63s", tab + 1);
            best.n++;
        }
    } else {
        best.n = -1; // stale: rewritten on the first save
    }
    fclose(f);
}

static void save(const char *key, const char *variant, double ms)
{
    const int fresh = best.n < 0;
    if (fresh) best.n = 0;
    if (best.n < MAX_KEYS) {
        snprintf(best.c[best.n].key, sizeof best.c[best.n].key, "%.255s", key);
        snprintf(best.c[best.n].variant, sizeof best.c[best.n].variant, "%.63s", variant);
        best.c[best.n++].shown = 1;
    }
    char path[512];
    snprintf(path, sizeof path, "%s", best.path);
    xf_cache_mkdirs(path);
    FILE *f = fopen(best.path, fresh ? "w" : "a");
    if (!f) return; // no cache: the next run tunes again
    if (fresh || ftell(f) == 0) fprintf(f, "%s\n", best.fingerprint);
    fprintf(f, "%s\t%s\t%.4f ms\n", key, variant, ms);
    fclose(f);
}

// The generated case of the call's shape.
static xf_case case_of(xf_stage stage, const void *args)
{
    xf_case c = {.stage = stage, .batch = 1, .heads = 1, .seed = 7, .pad = best.pad, .vocab = 1, .dtype = best.dtype};
    xf_stage_desc_of(stage)->case_of(args, &c);
    return c;
}

static int candidate(const xf_family *f, const xf_variant *v, xf_stage stage, int with_naive)
{
    return v->stage == stage && v->dtype == best.dtype && (with_naive || strcmp(f->name, "naive")) && strcmp(f->name, "mutant") &&
           !xf_variant_unavailable(v);
}

// naive is a candidate only where nothing else can run the stage (under
// XFBENCH_MAX_ISA=scalar, embed has no other kernel).
static int naive_needed(xf_stage stage)
{
    for (int f = 0; f < xf_registry_count(); f++)
        for (const xf_variant *v = xf_registry_family(f)->variants; v->name; v++)
            if (candidate(xf_registry_family(f), v, stage, 0)) return 0;
    return 1;
}

// Times every candidate on the shape; NULL if none passed.
static const xf_variant *tune(xf_stage stage, const xf_case *c, const char *key)
{
    xf_instance in;
    if (xf_case_bytes(c) > best.m->mem_available || xf_instance_build(&in, c) != 0) {
        printf("best: %s: not enough memory to tune\n", key);
        return NULL;
    }
    const xf_variant *win = NULL;
    double win_ns = 0.0;
    char report[1024] = "";
    size_t len = 0;
    const int with_naive = naive_needed(stage);
    for (int f = 0; f < xf_registry_count(); f++)
        for (const xf_variant *v = xf_registry_family(f)->variants; v->name; v++) {
            if (!candidate(xf_registry_family(f), v, stage, with_naive)) continue;
            xf_runner r = {.v = v, .name = v->name};
            if (xf_runner_prepare(&r, &in) != 0) {
                xf_runner_release(&r);
                continue;
            }
            xf_check_result res;
            xf_check_run(&r, &in, &res);
            xf_timing t = {0};
            if (res.passed) {
                const xf_timer_opts to = {0.2, 3};
                xf_time(&r, &in, &to, &t);
                xf_timing_free(&t);
            }
            xf_runner_release(&r);
            if (len < sizeof report)
                len += (size_t)(res.passed ? snprintf(report + len, sizeof report - len, " %s %.3f", v->name, t.median_ns / 1e6)
                                           : snprintf(report + len, sizeof report - len, " %s FAILED", v->name));
            if (res.passed && (!win || t.median_ns < win_ns)) win = v, win_ns = t.median_ns;
        }
    xf_instance_free(&in);
    if (win) {
        printf("best: %-60s -> %-14s (ms:%s)\n", key, win->name, report);
        save(key, win->name, win_ns / 1e6);
    }
    return win;
}

// The key of a call or pass, and its cached choice (NULL: none yet).
static const char *cached(xf_stage stage, const xf_case *c, char *key, size_t size, int *index)
{
    if (!best.loaded) load();
    char desc[160];
    xf_case_describe(c, desc, sizeof desc);
    snprintf(key, size, "%s %s threads=%d", xf_stage_name(stage), desc, best.threads);
    for (int i = 0; i < best.n; i++)
        if (!strcmp(best.c[i].key, key)) {
            *index = i;
            return best.c[i].variant;
        }
    return NULL;
}

static const xf_variant *pick(void *user, xf_stage stage, const void *args)
{
    (void)user;
    xf_case c = case_of(stage, args);
    char key[256];
    int index = -1;
    const char *name = cached(stage, &c, key, sizeof key, &index);
    if (name) {
        const xf_variant *v = xf_registry_find_dtype(stage, name, best.dtype);
        if (v && !xf_variant_unavailable(v)) {
            if (!best.c[index].shown) printf("best: %-60s -> %-14s (cached in %s)\n", key, v->name, best.path);
            best.c[index].shown = 1;
            return v;
        }
    }
    return tune(stage, &c, key);
}

// The ops a pass choice names: "per-call", or a family's own pass; -1 if
// that cannot run here (any more).
static int ops_of(const char *choice, xf_stage stage, xf_ops *ops)
{
    if (!strcmp(choice, "per-call")) {
        *ops = best.per_call;
        return 0;
    }
    char note[256], err[256];
    return xf_ops_for_family(choice, NULL, stage, best.dtype, best.threads, ops, note, sizeof note, err, sizeof err) == 0 ? 0
                                                                                                            : -1;
}

enum { MAX_PASSES = 16, ROUNDS = 3 };

// A whole pass in the race: prepared and checked once, then timed in
// every round.
typedef struct {
    const char *name;
    xf_runner r;
    int passed;
    double ns[ROUNDS]; // median of each round
} pass;

static double median3(const double *v)
{
    double a = v[0], b = v[1], c = v[2];
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}
_Static_assert(ROUNDS == 3, "median3 takes the rounds' medians");

int xf_best_resolve(xf_runner *r, xf_instance *in)
{
    const xf_stage stage = in->c.stage;
    char key[256];
    int index = -1;
    const char *choice = cached(stage, &in->c, key, sizeof key, &index);
    if (choice && ops_of(choice, stage, &r->ops) == 0) {
        if (!best.c[index].shown) printf("best: %-60s -> %-14s (cached in %s)\n", key, choice, best.path);
        best.c[index].shown = 1;
        return 0;
    }
    // Families other than the baseline and the planted bugs, each as its
    // own pass (borrowing where it has no kernel of its own, as its rows
    // do); then the per-call composition.
    pass p[MAX_PASSES];
    int n = 0;
    for (int f = 0; f <= xf_registry_count() && n < MAX_PASSES; f++) {
        const char *name = f < xf_registry_count() ? xf_registry_family(f)->name : "per-call";
        xf_ops ops;
        if (!strcmp(name, "naive") || !strcmp(name, "mutant") || ops_of(name, stage, &ops) != 0) continue;
        pass *c = &p[n++];
        *c = (pass){.name = name, .r = {.ops = ops, .name = name}};
        if (xf_runner_prepare(&c->r, in) != 0) continue;
        xf_check_result res;
        xf_check_run(&c->r, in, &res);
        c->passed = res.passed;
    }
    const xf_timer_opts to = {0.2, 1};
    for (int round = 0; round < ROUNDS; round++)
        for (int i = 0; i < n; i++) {
            pass *c = &p[(i + round) % n];
            if (!c->passed) continue;
            xf_timing t = {0};
            xf_time(&c->r, in, &to, &t);
            xf_timing_free(&t);
            c->ns[round] = t.median_ns;
        }
    char report[1024] = "", win[64] = "";
    size_t len = 0;
    double win_ns = 0.0;
    for (int i = 0; i < n; i++) {
        const double ns = p[i].passed ? median3(p[i].ns) : -1.0;
        xf_runner_release(&p[i].r);
        if (len < sizeof report)
            len += (size_t)(ns >= 0 ? snprintf(report + len, sizeof report - len, " %s %.1f", p[i].name, ns / 1e6)
                                    : snprintf(report + len, sizeof report - len, " %s FAILED", p[i].name));
        if (ns >= 0 && (!win[0] || ns < win_ns)) snprintf(win, sizeof win, "%s", p[i].name), win_ns = ns;
    }
    if (!win[0]) return -1;
    printf("best: %-60s -> %-14s (whole passes, medians of %d interleaved rounds, ms:%s)\n", key, win, ROUNDS,
           report);
    save(key, win, win_ns / 1e6);
    return ops_of(win, stage, &r->ops);
}

void xf_best_ops(xf_ops *ops, const xf_machine *m, xf_pad pad, xf_dtype dtype, int threads)
{
    memset(ops, 0, sizeof *ops);
    best.m = m, best.pad = pad, best.dtype = dtype, best.threads = threads;
    ops->pick = pick;
    ops->pick_math_ulp = 0.0;
    for (int f = 0; f < xf_registry_count(); f++)
        for (const xf_variant *v = xf_registry_family(f)->variants; v->name; v++)
            if (v->math_ulp > ops->pick_math_ulp) ops->pick_math_ulp = v->math_ulp;
    best.per_call = *ops;
}
