// The autotune behind --variant best (best.h). A call's key is its stage,
// shape (as the CSV describes it) and thread count; on a miss, every
// available variant of the stage except the naive baseline (never the
// fastest, and minutes at these sizes; a candidate only where nothing else
// can run the stage) is prepared, checked against the fp64 reference on a
// generated instance of the shape, and raced (below: three rounds of >= 3
// calls and >= --tune-time, 0.05 s, each); the winner is printed with the others' times
// and appended to the cache. The cache's first line
// names the build (commit, compiler, families) and machine (CPU, ISA,
// XFBENCH_MAX_ISA cap): if it differs, the file is started afresh. A
// capped run (or one with XFBENCH_CACHES, or fewer CPUs) has a file of its
// own, as the roofs do (xf_run_cache_path): runs alternating between caps
// kept retuning each other's cache away.
//
// Calls timed alone do not add up to a pass: composed, the thread pools of
// the peers and xfbench's OpenMP take turns, each spinning while another
// runs (measured on 2 threads, seq 512, with OpenBLAS's pthreads build:
// the per-call winners composed took 534 ms where the omp family's own
// pass took 325). So a compound stage is then settled in context
// (xf_best_resolve): the per-call composition and every family's own pass
// are each checked and timed as whole passes on the instance itself, and
// the fastest is kept (cached under the compound stage's key, "pass").
// Calls and passes alike are raced (race, choose): prepared and checked,
// then timed in interleaved rounds (harness/rounds.h); the fastest
// median wins unless a candidate listed before it is level with it (its
// median within 2% and the 95% interval of their ratio reaching 1, rounds
// bootstrapped whole, as compare does), which then wins: timed one after
// the other, a burst of noise on this shared machine (spreads of 20-40%
// seen on a Zen 3 under KVM) picked a pass 13-20% slower than the
// fastest, and single timings of level candidates changed the winner from
// run to run.
//
// Attention calls are keyed by classes of length (powers of two, tuned at
// the class's longest), not by length: tuning each of decoding's 128 cache
// depths at batch 8 took over 15 minutes. --retune 1 ignores the
// cached choices (and replaces them).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../variants/isa/clock.h"
#include "best.h"
#include "check.h"
#include "peak.h"
#include "registry.h"
#include "report.h"
#include "rounds.h"
#include "stages/stage.h"
#include "stats.h"
#include "timer.h"

typedef struct {
    char key[256], variant[64];
    int shown; // printed in this process
} choice;

static struct {
    xf_ops per_call; // the ops of the per-call composition
    const xf_machine *m;
    xf_pad pad;
    xf_dtype dtype;
    int threads, loaded, retune;
    double tune_s;
    char path[512], fingerprint[700];
    choice *c; // every cached choice (n of them, room for cap)
    int n, cap;
    double tuning_since_ns; // when this process began to tune (0: not yet): the progress lines, the total
    double last_progress_ns;
    int tuned;              // calls and passes this process has tuned
} best;

// Appends a choice to the table in memory; 0 if out of memory.
static int remember(const char *key, const char *variant, int shown)
{
    if (best.n == best.cap) {
        const int cap = best.cap ? 2 * best.cap : 64;
        choice *grown = realloc(best.c, (size_t)cap * sizeof *grown);
        if (!grown) return 0;
        best.c = grown, best.cap = cap;
    }
    choice *c = &best.c[best.n++];
    snprintf(c->key, sizeof c->key, "%.255s", key);
    snprintf(c->variant, sizeof c->variant, "%.63s", variant);
    c->shown = shown;
    return 1;
}

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
    xf_run_cache_path("best", best.path, sizeof best.path);
    make_fingerprint();
    FILE *f = fopen(best.path, "r");
    if (!f) return;
    char line[1024];
    if (fgets(line, sizeof line, f) && !strncmp(line, best.fingerprint, strlen(best.fingerprint)) &&
        line[strlen(best.fingerprint)] == '\n') {
        while (fgets(line, sizeof line, f)) {
            char *tab = strchr(line, '\t'), *end = tab ? strchr(tab + 1, '\t') : NULL;
            if (!tab || !end) continue;
            *tab = *end = '\0';
            if (!remember(line, tab + 1, 0)) break;
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
    remember(key, variant, 1); // a later lookup in this process finds the newest (cached scans from the end)
    char path[512];
    snprintf(path, sizeof path, "%s", best.path);
    xf_cache_mkdirs(path);
    FILE *f = fopen(best.path, fresh ? "w" : "a");
    if (!f) return; // no cache: the next run tunes again
    if (fresh || ftell(f) == 0) fprintf(f, "%s\n", best.fingerprint);
    fprintf(f, "%s\t%s\t%.4f ms\n", key, variant, ms);
    fclose(f);
}

static int power_of_two_above(int n)
{
    int p = 1;
    while (p < n && p < (1 << 30)) p *= 2;
    return p;
}

// The generated case of the call's shape. An attention call stands for its
// class of lengths, each rounded up to a power of two and tuned at the
// class's longest, where the choice costs the most time: a decode step's
// self-attention (one query row a sequence against its cache) by its
// cache depth, so that 128 steps are 8 classes to tune, not 128 depths;
// and the padded pass's per-sequence calls by their lengths (batch 8 with
// padding: 8 lengths from 26 to 116, each tuned for about a second on
// Zen 4, are 3 classes).
static xf_case case_of(xf_stage stage, const void *args)
{
    xf_case c = {.stage = stage, .batch = 1, .heads = 1, .seed = 7, .pad = best.pad, .vocab = 1, .dtype = best.dtype};
    xf_stage_desc_of(stage)->case_of(args, &c);
    if (stage == XF_ATTENTION) {
        if (c.seq_q > 1) c.seq_q = power_of_two_above(c.seq_q);
        c.seq_k = power_of_two_above(c.seq_k);
    }
    return c;
}

// The mutants are broken on purpose; emulated kernels' speed means nothing.
static int races(const xf_family *f) { return strcmp(f->name, "mutant") && !f->emulated; }

static int candidate(const xf_family *f, const xf_variant *v, xf_stage stage, int with_naive)
{
    return v->stage == stage && v->dtype == best.dtype && (with_naive || strcmp(f->name, "naive")) && races(f) &&
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

enum { MAX_RACERS = 24, ROUNDS = 3 }; // MAX_RACERS <= XF_ROUNDS_MAX

// A candidate in a race: a call's variant or a whole pass, prepared and
// checked once, then timed in every round.
typedef struct {
    const char *name;
    xf_runner r;
    int passed;
    double *x;           // every timed call, round after round
    int n, starts[ROUNDS];
    int pruned;          // dropped before the last round (prune_slower)
} racer;

// Progress on stderr: for a race that has run 2 s, what it races and the
// time left on it (from the mean time of the timings so far), at most a
// line a second; and every 5 s of tuning in this process, how many calls
// it has tuned (how many remain is not known before the composition has
// asked for them all).
static void progress(const char *what, int done, int total, double race_start_ns)
{
    const double now = xf_now_ns();
    if (now - best.last_progress_ns < 1e9 || done == 0 || done >= total) return;
    fflush(stdout); // whole lines, not stdout's buffer cut by ours
    if (now - race_start_ns >= 2e9) {
        const double left = (now - race_start_ns) / done * (total - done) / 1e9;
        fprintf(stderr, "best: racing %s: %d of %d timed, about %.0f s left (%.0f s tuning so far)\n", what, done,
                total, left, (now - best.tuning_since_ns) / 1e9);
        best.last_progress_ns = now;
    } else if (now - best.last_progress_ns >= 5e9 && now - best.tuning_since_ns >= 5e9) {
        fprintf(stderr, "best: %d calls and passes tuned in %.0f s so far\n", best.tuned,
                (now - best.tuning_since_ns) / 1e9);
        best.last_progress_ns = now;
    }
}

static double racer_median(const racer *r);
static double racer_min(const racer *r);

// A racer this much slower than the fastest is out before the last
// round: the spread of one round on this VM is 10-20%, so a 1.3x gap is
// not noise, and a pass of seconds raced to the end by every family is
// minutes.
#define RACE_PRUNE 1.3

// A race's rounds (harness/rounds.h): its racers, what they are (calls or
// whole passes), the timer's settings and the progress count.
typedef struct {
    racer *c;
    int n, passes, live, done;
    xf_instance *in;
    const xf_timer_opts *to;
    const char *what;
    double t0;
} race_rounds;

// The clearly slower are out: calls after the first round, by their
// median (dozens of calls a round); whole passes, one or two a round,
// after the second, by their fastest call, so that one burst of noise
// does not drop the fastest pass (measured on Zen 4, generate at batch 8
// on 2 threads: the omp pass, the fastest over 128 steps by 20%, read
// more than 1.3x the fastest in the first round of two cold runs in about
// ten and was dropped; best then ran oneDNN's pass, 0.79x omp's speed).
static void prune_slower(void *ctx, int round, const int *order, int *live)
{
    race_rounds *rr = ctx;
    (void)order;
    if (round != (rr->passes ? 2 : 1)) return;
    double fastest = 0.0;
    for (int i = 0; i < rr->n; i++)
        if (live[i] && rr->c[i].n && (fastest == 0.0 || racer_median(&rr->c[i]) < fastest))
            fastest = racer_median(&rr->c[i]);
    for (int i = 0; i < rr->n; i++)
        if (live[i] && (rr->passes ? racer_min(&rr->c[i]) : racer_median(&rr->c[i])) > RACE_PRUNE * fastest)
            live[i] = 0, rr->c[i].pruned = 1, rr->live--;
}

static void time_racer(void *ctx, int i, int round)
{
    race_rounds *rr = ctx;
    racer *r = &rr->c[i];
    if (!r->passed) return; // out since it could not keep its samples
    xf_timing t = {0};
    xf_time(&r->r, rr->in, rr->to, &t);
    double *grown = realloc(r->x, (size_t)(r->n + t.reps) * sizeof *grown);
    if (grown) {
        r->x = grown, r->starts[round] = r->n;
        memcpy(r->x + r->n, t.samples, (size_t)t.reps * sizeof *grown);
        r->n += t.reps;
    } else {
        r->passed = 0; // cannot keep its samples: out of the race
    }
    xf_timing_free(&t);
    progress(rr->what, ++rr->done, rr->live * ROUNDS, rr->t0);
}

// The passed racers timed in ROUNDS interleaved rounds (seeded orders: the
// same every run), at least to->min_time_s and min_reps calls per racer
// and round (passes: one call, no warm-up: the check and the rounds before
// warmed them); the clearly slower are dropped (prune_slower).
static void race(racer *c, int n, int passes, xf_instance *in, const xf_timer_opts *to, const char *what)
{
    int live[MAX_RACERS];
    race_rounds rr = {c, n, passes, 0, 0, in, to, what, xf_now_ns()};
    for (int i = 0; i < n; i++) live[i] = c[i].passed, rr.live += c[i].passed;
    const xf_round_steps steps = {prune_slower, time_racer, &rr};
    xf_rounds_run(n, ROUNDS, 1, live, &steps);
    for (int i = 0; i < n; i++) c[i].passed = c[i].passed && live[i];
}

static double racer_min(const racer *r)
{
    double m = r->n ? r->x[0] : -1.0;
    for (int i = 1; i < r->n; i++)
        if (r->x[i] < m) m = r->x[i];
    return m;
}

static double racer_median(const racer *r)
{
    double *x = malloc((size_t)r->n * sizeof *x);
    if (!x) return -1.0;
    memcpy(x, r->x, (size_t)r->n * sizeof *x);
    const double m = xf_median(x, r->n);
    free(x);
    return m;
}

// How much slower by median a racer listed before the fastest may be and
// still win as level with it (xf_level_with): the fastest median wins
// beyond it whatever the interval. With the interval alone, a race of
// whole passes (three rounds of one pass each) picked the first listed
// of level-looking families over faster ones: on Zen 4 (2026-12-07, 1
// thread) the fp32 seq-512 pass avx2 at 389.5 ms over avx512's 332.9 and
// per-call's 327.4, and decoding at batch 1 avx2 at 138.3 ms (16 steps)
// over avx512's 128.9, which then ran 1.096x avx2's speed in the
// --rounds race of the families.
#define LEVEL_MARGIN 0.02

// The winner's index (-1 if none passed): the fastest median, unless a
// racer listed before it is level with it (xf_level_with: within
// LEVEL_MARGIN and its ratio's 95% interval reaching 1, rounds resampled
// whole, fixed seed: the same samples give the same choice), which then
// wins. So level candidates give one stable answer, the earliest listed,
// instead of whichever noise favoured.
static int choose(racer *c, int n, double *median_ns)
{
    int fast = -1;
    for (int i = 0; i < n; i++) {
        median_ns[i] = c[i].passed && c[i].n ? racer_median(&c[i]) : c[i].pruned ? -2.0 : -1.0;
        if (median_ns[i] > 0 && (fast < 0 || median_ns[i] < median_ns[fast])) fast = i;
    }
    for (int i = 0; i < fast; i++) {
        if (median_ns[i] <= 0) continue;
        const xf_samples a = {c[i].x, c[i].n, c[i].starts, ROUNDS}, b = {c[fast].x, c[fast].n, c[fast].starts, ROUNDS};
        if (xf_level_with(&a, &b, LEVEL_MARGIN)) return i;
    }
    return fast;
}

static void race_free(racer *c, int n)
{
    for (int i = 0; i < n; i++) {
        xf_runner_release(&c[i].r);
        free(c[i].x);
    }
}

// "name 1.234, name FAILED, ..." (median ms) into report; * marks the winner.
static void race_report(const racer *c, int n, const double *median_ns, int win, char *report, size_t size)
{
    size_t len = 0;
    report[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)(median_ns[i] > 0    ? snprintf(report + len, size - len, " %s%s %.3f", i == win ? "*" : "",
                                                       c[i].name, median_ns[i] / 1e6)
                        : median_ns[i] < -1 ? snprintf(report + len, size - len, " %s >%.1fx", c[i].name, RACE_PRUNE)
                                            : snprintf(report + len, size - len, " %s FAILED", c[i].name));
}

static void tuning_starts(void)
{
    if (!best.tuning_since_ns) best.tuning_since_ns = xf_now_ns();
}

// Races every candidate variant on the call's shape; NULL if none passed.
static const xf_variant *tune(xf_stage stage, const xf_case *c, const char *key)
{
    tuning_starts();
    xf_instance in;
    if (xf_case_bytes(c) > best.m->mem_available || xf_instance_build(&in, c) != 0) {
        printf("best: %s: not enough memory to tune\n", key);
        return NULL;
    }
    racer rc[MAX_RACERS];
    const xf_variant *vs[MAX_RACERS];
    int n = 0;
    const int with_naive = naive_needed(stage);
    for (int f = 0; f < xf_registry_count(); f++)
        for (const xf_variant *v = xf_registry_family(f)->variants; v->name && n < MAX_RACERS; v++) {
            if (!candidate(xf_registry_family(f), v, stage, with_naive)) continue;
            racer *r = &rc[n];
            *r = (racer){.name = v->name, .r = {.v = v, .name = v->name}};
            vs[n++] = v;
            if (xf_runner_prepare(&r->r, &in) != 0) continue;
            xf_check_result res;
            xf_check_run(&r->r, &in, &res);
            r->passed = res.passed;
        }
    const xf_timer_opts to = {best.tune_s, 3, 0};
    race(rc, n, 0, &in, &to, key);
    double median_ns[MAX_RACERS];
    const int win = choose(rc, n, median_ns);
    char report[1024];
    race_report(rc, n, median_ns, win, report, sizeof report);
    race_free(rc, n);
    xf_instance_free(&in);
    if (win < 0) return NULL;
    printf("best: %-60s -> %-14s (medians of %d interleaved rounds, ms:%s)\n", key, vs[win]->name, ROUNDS, report);
    save(key, vs[win]->name, median_ns[win] / 1e6);
    best.tuned++;
    return vs[win];
}

// The key of a call or pass, and its cached choice (NULL: none yet).
static const char *cached(xf_stage stage, const xf_case *c, char *key, size_t size, int *index)
{
    if (!best.loaded) load();
    char desc[160];
    xf_case_describe(c, desc, sizeof desc);
    snprintf(key, size, "%s %s threads=%d", xf_stage_name(stage), desc, best.threads);
    // --retune: only choices made by this process count.
    for (int i = best.n - 1; i >= 0; i--)
        if ((!best.retune || best.c[i].shown) && !strcmp(best.c[i].key, key)) {
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

// generate's passes are raced on their first RACE_STEPS steps: every step
// is the same program (the deeper steps' attention classes are tuned per
// call all the same), and a 128-step pass at batch 8 takes 4.5 s on a Zen
// 3 core, so racing and checking every family on it took minutes. The
// shorter instance has the same shapes and seed; 0 if not shortened.
enum { RACE_STEPS = 16 };
static int race_instance(const xf_instance *in, xf_instance *shorter)
{
    if (in->c.stage != XF_GENERATE || in->c.seq_q <= RACE_STEPS) return 0;
    xf_case c = in->c;
    c.seq_q = RACE_STEPS;
    return xf_case_bytes(&c) <= best.m->mem_available && xf_instance_build(shorter, &c) == 0;
}

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
    tuning_starts();
    // Families other than the baseline and the planted bugs, each as its
    // own pass (borrowing where it has no kernel of its own, as its rows
    // do); then the per-call composition.
    xf_instance shorter;
    const int short_race = race_instance(in, &shorter);
    xf_instance *race_in = short_race ? &shorter : in;
    racer p[MAX_RACERS];
    int n = 0;
    double ulp = 0.0;
    int p_bf16 = 0;
    for (int f = 0; f <= xf_registry_count() && n < MAX_RACERS; f++) {
        const xf_family *fam = f < xf_registry_count() ? xf_registry_family(f) : NULL;
        const char *name = fam ? fam->name : "per-call";
        xf_ops ops;
        if (!strcmp(name, "naive") || (fam && !races(fam)) || ops_of(name, stage, &ops) != 0) continue;
        racer *c = &p[n++];
        *c = (racer){.name = name, .r = {.ops = ops, .name = name}};
        if (xf_runner_prepare(&c->r, race_in) != 0) continue;
        c->passed = 1;
        if (c->r.math_ulp > ulp) ulp = c->r.math_ulp;
        if (c->r.p_bf16) p_bf16 = 1;
    }
    // Every pass checked against the bound of the largest math error any of
    // them declares (and of P in bf16 if any rounds it) (as the per-call composition always is): the fp64
    // reference is then computed once, not once per declared error (it
    // takes longer than the passes; each family is checked at its own
    // bound by the test suite).
    for (int i = 0; i < n; i++) {
        if (!p[i].passed) continue;
        p[i].r.math_ulp = ulp, p[i].r.p_bf16 = p_bf16;
        xf_check_result res;
        xf_check_run(&p[i].r, race_in, &res);
        p[i].passed = res.passed;
    }
    const xf_timer_opts to = {6 * best.tune_s, 1, 1};
    race(p, n, 1, race_in, &to, key);
    if (short_race) xf_instance_free(&shorter);
    double median_ns[MAX_RACERS];
    const int win = choose(p, n, median_ns);
    char report[1024], name[64] = "";
    race_report(p, n, median_ns, win, report, sizeof report);
    if (win >= 0) snprintf(name, sizeof name, "%s", p[win].name);
    race_free(p, n);
    if (win < 0) return -1;
    printf("best: %-60s -> %-14s (whole passes%s, medians of %d interleaved rounds, ms:%s)\n", key, name,
           short_race ? " of the first 16 steps" : "", ROUNDS, report);
    save(key, name, median_ns[win] / 1e6);
    best.tuned++;
    printf("best: %d calls and passes tuned in %.1f s\n", best.tuned, (xf_now_ns() - best.tuning_since_ns) / 1e9);
    return ops_of(name, stage, &r->ops);
}

void xf_best_ops(xf_ops *ops, const xf_machine *m, const xf_best_settings *how)
{
    memset(ops, 0, sizeof *ops);
    best.m = m, best.pad = how->pad, best.dtype = how->dtype, best.threads = how->threads;
    best.retune = how->retune, best.tune_s = how->tune_s;
    ops->pick = pick;
    ops->pick_math_ulp = 0.0;
    ops->pick_p_bf16 = 0;
    for (int f = 0; f < xf_registry_count(); f++)
        for (const xf_variant *v = xf_registry_family(f)->variants; v->name; v++) {
            if (v->math_ulp > ops->pick_math_ulp) ops->pick_math_ulp = v->math_ulp;
            if (v->p_bf16) ops->pick_p_bf16 = 1;
        }
    best.per_call = *ops;
}
