// The xfbench commands: list, check, bench, forward.
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "app.h"
#include "best.h"
#include "compare.h"
#include "contention.h"
#include "grid.h"
#include "model_file.h"
#include "options.h"
#include "peak.h"
#include "registry.h"
#include "report.h"
#include "rounds.h"
#include "stages/stage.h"
#include "stats.h"
#include "torch_compare.h"
#include "../variants/isa/blocking.h"
#include "../variants/isa/caches.h"
#include "../variants/isa/isa.h"

static const char *prog = "xfbench";
static xf_peak peak; // the denominators of pct_peak (flops_1 == 0: unknown)

// How the primitive variant `name` of stage s in dtype d computes bf16
// here (its family says so).
static xf_bf16_arith arith_of(xf_stage s, const char *name, xf_dtype d)
{
    const xf_variant *v = xf_registry_find_dtype(s, name, d);
    const xf_family *f = v ? xf_registry_find_family(v->family) : NULL;
    return f && f->bf16_arith ? f->bf16_arith() : XF_ARITH_FMA;
}

// The highest arithmetic any kernel of a bf16 row ran (AMX over vdpbf16ps
// over FMA): a primitive's own, or any a composition called
// (stage_variants are '+'-joined where best mixed them).
static xf_bf16_arith ran_arith(const xf_runner *r, xf_stage s, xf_dtype d)
{
    if (d != XF_BF16) return XF_ARITH_FMA;
    if (r->v) return arith_of(s, r->v->name, d);
    xf_bf16_arith top = XF_ARITH_FMA;
    for (int p = 0; p < XF_FIRST_COMPOUND; p++) {
        char name[96];
        for (const char *q = r->ex.stage_variants[p]; *q;) {
            size_t n = strcspn(q, "+");
            snprintf(name, sizeof name, "%.*s", (int)n, q);
            const xf_bf16_arith a = arith_of((xf_stage)p, name, d);
            if (a > top) top = a;
            q += n + (q[n] == '+');
        }
    }
    return top;
}

// Whose compute roof a row is held against. A bf16 row that ran on AMX
// (the amx family; oneDNN from avx512_core_amx), even in part: AMX's, the highest compute
// roof a CPU has (a oneDNN bf16 GEMM on AMX read 700-1050% of the
// vdpbf16ps roof on a Xeon); unknown (no %peak) where it was not
// measured. A bf16 row whose kernels compute with the bf16 dot product
// (vdpbf16ps; oneDNN at avx512_core_bf16): the dot product's, where it was
// measured; a composition that mixes it with FMA is held against the
// higher of the two roofs, never a flattering one (the clock scales both
// alike). A bf16 row that widens to fp32 and uses FMA (avx2bf16,
// avx512bf16w) is held against the FMA roof: on a Xeon whose vdpbf16ps
// runs at half the FMA rate, the dot product's roof would put it near
// 200%; on Zen 4, where it runs at twice, near 50%.
static xf_bf16_arith roof_arith(const xf_instance *in, xf_bf16_arith ran, int threads)
{
    if (ran == XF_ARITH_AMX) return XF_ARITH_AMX;
    if (ran != XF_ARITH_DOT || peak.bf16_1 <= 0) return XF_ARITH_FMA;
    return in->c.stage < XF_FIRST_COMPOUND ||
                   xf_peak_flops_of(&peak, XF_BF16, threads) >= xf_peak_flops_of(&peak, XF_F32, threads)
               ? XF_ARITH_DOT
               : XF_ARITH_FMA;
}

// Which roof a row is held against. Streaming stages (the descriptor's
// memory_bound) move a few bytes per flop: the bandwidth of the memory
// level that holds their working set. The rest: the roofline's attainable
// rate, min(FMA peak, that bandwidth x useful FLOPs per byte), in useful
// FLOPs (a kernel that skips masked tiles does less than the dense count,
// and a dense rate over the FMA peak would claim more than the machine can
// do). A GEMM at Transformer shapes is under the FMA roof; the same GEMM
// on a few rows (lm_head for one token, decoding) is under a bandwidth one.
static xf_row_rates rates_of(const xf_instance *in, const xf_timing *t, int threads, xf_bf16_arith ran)
{
    xf_row_rates r = {.roof = XF_ROOF_FMA, .pct_peak = -1.0, .useful_pct_peak = -1.0};
    if (peak.flops_1 <= 0) return r;
    // At the clock read around the timed loop, the higher of its two ends
    // (peak.h: a roof is a rate per cycle; the higher clock gives the
    // higher roof, never a flattering one)
    const xf_contention *st = &t->state;
    const double ghz =
        st->clock_before_ghz > 0 && st->clock_after_ghz > 0 ? fmax(st->clock_before_ghz, st->clock_after_ghz) : 0.0;
    r.arith = roof_arith(in, ran, threads);
    const double flops = r.arith == XF_ARITH_AMX ? xf_peak_amx_at(&peak, threads, ghz)
                                                 : xf_peak_flops_at(&peak, r.arith == XF_ARITH_DOT ? XF_BF16 : XF_F32,
                                                                    threads, ghz);
    if (flops <= 0) return r; // AMX ran and its roof is unknown here
    r.useful_pct_peak = 100.0 * in->useful_flops / t->median_ns / flops;
    const xf_stage_desc *desc = xf_stage_desc_of(in->c.stage);
    const xf_roof level = xf_peak_level(&peak, in->bytes, threads);
    const double bw = desc->read_roof ? xf_peak_read_bw(&peak, level, threads) : xf_peak_bw(&peak, level, threads);
    if (!desc->memory_bound && bw * in->useful_flops / in->bytes >= flops) {
        r.pct_peak = r.useful_pct_peak;
        return r;
    }
    r.roof = level, r.read = desc->read_roof;
    r.pct_peak = 100.0 * in->bytes / t->median_ns / bw;
    return r;
}

// What ran: "stage=variant" for a primitive; for a compound stage, the
// variants each primitive stage ran with in this pass (best may pick
// several per stage: '+'-joined).
static void composition_of(const xf_runner *r, xf_stage s, char *buf, size_t size)
{
    if (r->v) {
        snprintf(buf, size, "%s=%s", xf_stage_name(s), r->v->name);
        return;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (int p = 0; p < XF_FIRST_COMPOUND && len < size; p++)
        if (r->ex.stage_variants[p][0])
            len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", len ? ";" : "",
                                    xf_stage_name((xf_stage)p), r->ex.stage_variants[p]);
}

// One variant to run on a stage: a primitive variant, or a family's
// composition for a compound stage.
typedef struct {
    xf_runner r;
    const char *cflags;
    const char *unavailable; // why it cannot run here, or NULL
    char why[256];           // a composition's reason, which unavailable points to
    char note[256];          // borrowings of a composition
} entry;

static int in_list(const char *list, const char *name)
{
    if (!list || !strcmp(list, "all")) return 1;
    char item[128];
    for (const char *p = list; xf_list_next(&p, item, sizeof item);)
        if (!strcmp(item, name)) return 1;
    return 0;
}

// --stage: a stage named, "all", or "primitives" (every primitive stage).
static int stage_selected(const xf_options *o, int s)
{
    return in_list(o->stages, xf_stage_name((xf_stage)s)) || (s < XF_FIRST_COMPOUND && in_list(o->stages, "primitives"));
}

static const xf_machine *best_machine; // set by xf_main before any selection

// A case runs the variants of its own dtype (docs/design.md, Precision);
// compound stages the compositions of families with variants of it.
static int select_entries(xf_stage stage, const xf_options *o, entry *out, int max)
{
    int n = 0;
    for (int f = 0; f < xf_registry_count(); f++) {
        const xf_family *fam = xf_registry_family(f);
        if (stage < XF_FIRST_COMPOUND) {
            for (const xf_variant *v = fam->variants; v->name && n < max; v++) {
                // A family name selects all of that family's variants.
                if (v->stage != stage || v->dtype != o->shape.dtype ||
                    !(in_list(o->variants, v->name) || in_list(o->variants, fam->name)))
                    continue;
                entry *e = &out[n++];
                memset(e, 0, sizeof *e);
                e->r.v = v, e->r.name = v->name, e->cflags = fam->cflags;
                e->unavailable = xf_variant_unavailable(v);
            }
        } else if (in_list(o->variants, fam->name) && n < max && xf_family_composes(fam, stage, o->shape.dtype)) {
            entry *e = &out[n++];
            memset(e, 0, sizeof *e);
            int rc = xf_ops_for_family(fam->name, o->use, stage, o->shape.dtype, o->threads, &e->r.ops, e->note,
                                       sizeof e->note, e->why, sizeof e->why);
            if (rc < 0) xf_die_usage("%s", e->why);
            if (rc > 0) e->unavailable = e->why;
            e->r.name = fam->name, e->cflags = fam->cflags;
        }
    }
    // best: only when named (its autotune takes time), after the families.
    if (stage >= XF_FIRST_COMPOUND && o->variants && strcmp(o->variants, "all") && in_list(o->variants, "best") &&
        n < max) {
        entry *e = &out[n++];
        memset(e, 0, sizeof *e);
        const xf_best_settings how = {o->shape.pad, o->shape.dtype, o->threads, o->retune, o->tune_time};
        xf_best_ops(&e->r.ops, best_machine, &how);
        e->r.resolve = xf_best_resolve;
        e->r.name = "best";
        e->cflags = "the fastest checked whole pass on this machine: per-call winners composed, or a family's own"
                    " (autotuned, cached)";
    }
    return n;
}

// A primitive stage: a variant of dtype d; a compound one: a family's
// composition of dtype d.
static int stage_has_dtype(int s, xf_dtype d)
{
    for (int f = 0; f < xf_registry_count(); f++) {
        if (s >= XF_FIRST_COMPOUND && xf_family_composes(xf_registry_family(f), (xf_stage)s, d)) return 1;
        for (const xf_variant *v = xf_registry_family(f)->variants; v->name; v++)
            if ((int)v->stage == s && v->dtype == d) return 1;
    }
    return 0;
}

// The stages with a variant of dtype d, for the message that names them.
static void stages_of_dtype(xf_dtype d, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int s = 0; s < XF_NSTAGES; s++)
        if (stage_has_dtype(s, d)) xf_append(buf, size, "%s%s", buf[0] ? ", " : "", xf_stage_name((xf_stage)s));
}

// Every name given to --variant and --stage must select something, in the
// case's dtype.
static void validate_selection(const xf_options *o)
{
    char name[128], have[256];
    const xf_dtype dt = o->shape.dtype;
    stages_of_dtype(dt, have, sizeof have);
    for (const char *p = o->stages; strcmp(o->stages, "all") && xf_list_next(&p, name, sizeof name);) {
        if (!strcmp(name, "primitives")) continue;
        const int s = xf_stage_from_name(name);
        if (s < 0) xf_die_usage("unknown stage '%s' (see 'xfbench list')", name);
        if (dt != XF_F32 && !stage_has_dtype(s, dt))
            xf_die_usage("no %s variant of %s yet (%s runs: %s)", xf_dtype_name(dt), name, xf_dtype_name(dt), have);
    }
    // A name (variant or family) must have a variant of the case's dtype.
    for (const char *p = o->variants; o->variants && strcmp(o->variants, "all") && xf_list_next(&p, name, sizeof name);) {
        const xf_variant *other = NULL;
        int has = !strcmp(name, "best");
        for (int f = 0; f < xf_registry_count() && !has; f++) {
            const xf_family *fam = xf_registry_family(f);
            for (const xf_variant *v = fam->variants; v->name && !has; v++)
                if (!strcmp(v->name, name) || !strcmp(fam->name, name)) {
                    if (v->dtype == dt) has = 1;
                    else other = v;
                }
        }
        if (!has && other)
            xf_die_usage("variant '%s' runs %s, the case is %s (--dtype %s)", name, xf_dtype_name(other->dtype),
                         xf_dtype_name(dt), xf_dtype_name(other->dtype));
    }
    if (!o->variants || !strcmp(o->variants, "all")) return;
    for (const char *p = o->variants; xf_list_next(&p, name, sizeof name);) {
        int found = 0;
        for (int s = 0; s < XF_NSTAGES && !found; s++) {
            if (!stage_selected(o, s)) continue;
            found = xf_registry_find_family(name) != NULL ||
                    (s < XF_FIRST_COMPOUND && xf_registry_find((xf_stage)s, name) != NULL) ||
                    (s >= XF_FIRST_COMPOUND && !strcmp(name, "best"));
        }
        if (!found) xf_die_usage("no variant named '%s' for the selected stages (see 'xfbench list')", name);
    }
}

static int cmd_list(void)
{
    printf("%-14s %-28s %-8s %s\n", "stage", "variant", "status", "what");
    for (int s = 0; s < XF_NSTAGES; s++) {
        if (s >= XF_FIRST_COMPOUND)
            printf("%-14s %-28s %-8s %s\n", xf_stage_name((xf_stage)s), "best", "ok",
                   "the fastest checked whole pass: per-call winners composed, or a family's own (autotuned once, cached)");
        for (int f = 0; f < xf_registry_count(); f++) {
            const xf_family *fam = xf_registry_family(f);
            for (int d = 0; s >= XF_FIRST_COMPOUND && d < XF_NDTYPES; d++) {
                xf_ops ops;
                char note[256], why[256], comp[256], dt[32] = "";
                if (!xf_family_composes(fam, (xf_stage)s, (xf_dtype)d)) continue;
                if (d != XF_F32) snprintf(dt, sizeof dt, "dtype=%s: ", xf_dtype_name((xf_dtype)d));
                if (xf_ops_for_family(fam->name, NULL, (xf_stage)s, (xf_dtype)d, 1, &ops, note, sizeof note, why,
                                      sizeof why)) {
                    printf("%-14s %-28s %-8s %scomposed: unavailable: %s\n", xf_stage_name((xf_stage)s), fam->name,
                           "n/a", dt, why);
                    continue;
                }
                xf_ops_composition(&ops, (xf_stage)s, comp, sizeof comp);
                printf("%-14s %-28s %-8s %scomposed: %s\n", xf_stage_name((xf_stage)s), fam->name,
                       fam->emulated ? "emulated" : "ok", dt, comp);
            }
            if (s >= XF_FIRST_COMPOUND) continue;
            for (const xf_variant *v = fam->variants; v->name; v++) {
                if (v->stage != (xf_stage)s) continue;
                const char *why = xf_variant_unavailable(v);
                // Variants of another dtype than f32 say so (--dtype runs them).
                char dt[32] = "";
                if (v->dtype != XF_F32) snprintf(dt, sizeof dt, "dtype=%s: ", xf_dtype_name(v->dtype));
                printf("%-14s %-28s %-8s %s%s%s%s  [%s]\n", xf_stage_name((xf_stage)s), v->name,
                       why ? "n/a" : fam->emulated ? "emulated" : "ok", dt, v->summary, why ? ": unavailable: " : "",
                       why ? why : "", fam->cflags);
            }
        }
    }
    return 0;
}

// Refuses a case that would not fit in memory, naming the bytes it needs.
static void refuse_oversized(const xf_case *c, const xf_machine *m)
{
    double need = xf_case_bytes(c);
    char desc[256];
    xf_case_describe(c, desc, sizeof desc);
    if (need > m->mem_available)
        xf_die_usage("%s %s needs about %.0f bytes, more than the %.0f bytes available",
                     xf_stage_name(c->stage), desc, need, m->mem_available);
}

// The one-shape commands refuse before printing anything.
static void refuse_oversized_shape(const xf_options *o, const xf_machine *m)
{
    for (int s = 0; s < XF_NSTAGES; s++) {
        if (!stage_selected(o, s)) continue;
        xf_case c = xf_case_of_stage(&o->shape, (xf_stage)s);
        refuse_oversized(&c, m);
    }
}

static void build_or_die(xf_instance *in, const xf_case *c, const xf_machine *m)
{
    refuse_oversized(c, m);
    if (xf_instance_build(in, c) != 0)
        xf_die_usage("%s: out of memory allocating about %.0f bytes", xf_stage_name(c->stage),
                     xf_case_bytes(c));
}

typedef struct {
    int passed, failed, skipped;
} tally;

// --out: the forward pass's outputs as safetensors ("memory", "output"),
// with the variant's verdict in the metadata ("passed", or "failed: " and
// why), so a file is never taken for a correct result it is not.
static void write_outputs(const char *path, const xf_instance *in, const char *variant,
                          const xf_check_result *verdict, const xf_machine *m)
{
    const xf_forward_args *a = &in->args.forward;
    const int d = a->heads * a->dk;
    xf_st_out t[2] = {{"memory", in->out[0].data, 3, {a->batch, a->seq_s, d}},
                      {"output", in->out[1].data, 3, {a->batch, a->seq_t, d}}};
    char heads[16];
    snprintf(heads, sizeof heads, "%d", a->heads);
    char check[sizeof verdict->why + 16];
    snprintf(check, sizeof check, verdict->passed ? "passed" : "failed: %s", verdict->why);
    const char *meta[] = {"producer", "xfbench", "variant", variant, "commit", m->commit, "heads", heads,
                          "check", check};
    char err[300];
    if (xf_st_write(path, t, 2, meta, 5, err, sizeof err)) xf_die_usage("--out: %s", err);
    printf("wrote memory and output of %s (check %s) to %s\n", variant, verdict->passed ? "passed" : "failed",
           path);
}

static void print_check(const char *status, const xf_case *c, const entry *e,
                        const xf_check_result *r, const xf_instance *in, const xf_instance *f32)
{
    char desc[256], opts[512];
    xf_case_describe(c, desc, sizeof desc);
    xf_case_options(c, opts, sizeof opts);
    printf("%s %-13s %-24s %-44s max_abs=%.3g max_rel=%.3g nmse=%.3g err/bound=%.3g [%s]",
           status, xf_stage_name(c->stage), e->r.name, desc, r->max_abs, r->max_rel, r->nmse,
           r->worst_ratio, in->model_bound ? "model 8 sigma" : "componentwise");
    if (f32) { // reported, not checked
        const xf_distance dist = xf_check_distance(in, f32);
        printf(" vs_f32: max_rel=%.3g nmse=%.3g", dist.max_rel, dist.nmse);
    }
    if (!r->passed) printf("  %s", r->why);
    printf("  repro: %s check %s --variant %s\n", prog, opts, e->r.name);
}

// Checks one case against every selected variant. A case of a lower
// precision also reports its distance from the fp32 model: the same case
// in fp32, whose reference reads the unrounded draws.
static void check_case(const xf_case *c, entry *es, int n, const xf_machine *m, tally *t)
{
    xf_instance in, f32;
    int have_f32 = 0, any = 0; // the fp32 twin: built when a variant first ran
    for (int i = 0; i < n; i++) any |= !es[i].unavailable;
    if (any) build_or_die(&in, c, m); // nothing to build for a case every variant skips
    for (int i = 0; i < n; i++) {
        entry *e = &es[i];
        char desc[256];
        xf_case_describe(c, desc, sizeof desc);
        if (e->unavailable) {
            printf("SKIP %-13s %-24s %-44s unavailable: %s\n", xf_stage_name(c->stage), e->r.name,
                   desc, e->unavailable);
            t->skipped++;
            continue;
        }
        if (xf_runner_prepare(&e->r, &in) != 0) {
            printf("SKIP %-13s %-24s %-44s its prepare step refused this shape\n",
                   xf_stage_name(c->stage), e->r.name, desc);
            xf_runner_release(&e->r);
            t->skipped++;
            continue;
        }
        xf_check_result r;
        xf_check_run(&e->r, &in, &r);
        xf_runner_release(&e->r);
        if (c->dtype != XF_F32 && !have_f32) {
            xf_case c32 = *c;
            c32.dtype = XF_F32;
            build_or_die(&f32, &c32, m);
            xf_instance_reference(&f32, 1.0, 0); // the values only: the bound's terms do not matter
            have_f32 = 1;
        }
        print_check(r.passed ? "PASS" : "FAIL", c, e, &r, &in, have_f32 ? &f32 : NULL);
        if (r.passed) t->passed++;
        else t->failed++;
    }
    if (any) xf_instance_free(&in);
    if (have_f32) xf_instance_free(&f32);
}

enum { MAX_ENTRIES = XF_ROUNDS_MAX }; // entries of one stage: timed in one run of rounds

static int cmd_check(const xf_options *o, const xf_machine *m)
{
    tally t = {0, 0, 0};
    int selected = 0;
    for (int s = 0; s < XF_NSTAGES; s++) {
        if (!stage_selected(o, s)) continue;
        entry es[MAX_ENTRIES];
        int n = select_entries((xf_stage)s, o, es, MAX_ENTRIES);
        if (!n) continue;
        for (int i = 0; i < n; i++)
            if (es[i].note[0]) printf("note: %s %s: %s\n", xf_stage_name((xf_stage)s), es[i].r.name, es[i].note);
        xf_case *cases, one = xf_case_of_stage(&o->shape, (xf_stage)s);
        int ncases = o->grid ? xf_grid_cases(o->grid, (xf_stage)s, &one, &cases) : 1;
        if (!o->grid) cases = &one;
        for (int i = 0; i < ncases; i++) check_case(&cases[i], es, n, m, &t);
        selected += ncases * n;
        if (o->grid) free(cases);
    }
    if (!selected) xf_die_usage("the --stage and --variant filters select no case");
    // The closing line CI reads: 'N passed, N failed, N skipped'.
    printf("check: %d passed, %d failed, %d skipped\n", t.passed, t.failed, t.skipped);
    if (t.failed) return 1;
    return t.passed ? 0 : 77; // 77: everything selected is unavailable here (meson: skip)
}

static void print_breakdown(const entry *e, const xf_timing *tm)
{
    const xf_exec *ex = &e->r.ex;
    double total = 0.0;
    for (int s = 0; s < XF_FIRST_COMPOUND; s++) total += ex->stage_ns[s];
    printf("  per-stage time (mean per pass, over %d timed passes):\n", tm->reps);
    for (int s = 0; s < XF_FIRST_COMPOUND; s++) {
        if (!ex->stage_calls[s]) continue;
        printf("    %-14s %-10s %9.3f ms %5.1f%%  %ld calls per pass\n", xf_stage_name((xf_stage)s),
               ex->stage_variants[s], ex->stage_ns[s] / tm->reps / 1e6,
               total > 0 ? 100.0 * ex->stage_ns[s] / total : 0.0, ex->stage_calls[s] / tm->reps);
    }
}

// Where rows go, and what bench counts across instances.
typedef struct {
    FILE *csv, *jsonl;
    int contended;      // cases timed while the machine was busy
    int refused;        // of those, not recorded (--strict)
} sink;

// One timed measurement of entry e: printed, recorded (unless --strict
// refuses a contended one).
static void time_entry(entry *e, xf_instance *in, const xf_check_result *r, const xf_options *o,
                       const xf_machine *m, sink *out, int breakdown, xf_timing *tm)
{
    const xf_stage s = in->c.stage;
    char desc[256], comp[512];
    xf_case_describe(&in->c, desc, sizeof desc);
    composition_of(&e->r, s, comp, sizeof comp);
    xf_timer_opts to = {o->min_time, o->min_reps, 0};
    void (*timed_mode)(xf_instance *, int) = xf_stage_desc_of(s)->timed_mode;
    if (timed_mode) timed_mode(in, 1);
    xf_time(&e->r, in, &to, tm);
    if (timed_mode) timed_mode(in, 0);
    xf_row_rates rates = rates_of(in, tm, o->threads, ran_arith(&e->r, s, in->c.dtype));
    rates.composition = comp;
    printf("%-13s %-24s %-44s %10.4f %10.4f %6.1f %8.2f %8.2f %8.2f %6.1f%% %-8s %9.3f  ok (err/bound %.2g)%s%s\n",
           xf_stage_name(s), e->r.name, desc, tm->median_ns / 1e6, tm->min_ns / 1e6,
           tm->spread_pct, in->flops / tm->median_ns, in->useful_flops / tm->median_ns,
           in->bytes / tm->median_ns, rates.pct_peak, xf_rates_roof_name(&rates), e->r.prepare_ns / 1e6,
           r->worst_ratio, e->r.v ? "" : "  ran: ", e->r.v ? "" : comp);
    if (in->tokens > 0)
        printf("  decoding: %.1f tokens/s, %.3f ms per step (%.0f tokens in %.0f steps)\n",
               in->tokens / tm->median_ns * 1e9, tm->median_ns / in->steps / 1e6, in->tokens, in->steps);
    if (breakdown) print_breakdown(e, tm);
    if (tm->state.contended) {
        out->contended++;
        printf("  WARNING: contended while timed (%s)%s\n", tm->state.why,
               o->strict ? ": not recorded (--strict)" : ": recorded with contended=1; rerun on a quiet machine");
        if (o->strict) {
            out->refused++;
            return;
        }
    }
    xf_report_row(out->csv, out->jsonl, in, e->r.name, e->cflags, o->threads, r, tm, e->r.prepare_ns, &rates, m,
                  e->r.v ? NULL : &e->r.ex);
}

// Rounds: each entry's speed relative to the first that ran, the median
// of the per-round ratios (the rounds' drift hits both of a pair alike)
// with their smallest and largest.
static void print_round_ratios(entry *es, const int *ok, int n, double *const *ns, int rounds)
{
    int ref = 0;
    while (ref < n && !ok[ref]) ref++;
    if (ref >= n || rounds < 2) return;
    printf("rounds: %d; speed relative to %s = its time / the variant's, per round; median [min, max]:\n", rounds,
           es[ref].r.name);
    double *ratio = malloc((size_t)rounds * sizeof *ratio), *t = malloc((size_t)rounds * sizeof *t);
    for (int i = 0; i < n; i++) {
        if (!ok[i]) continue;
        double lo = INFINITY, hi = 0.0;
        for (int k = 0; k < rounds; k++) {
            ratio[k] = ns[ref][k] / ns[i][k], t[k] = ns[i][k];
            lo = ratio[k] < lo ? ratio[k] : lo, hi = ratio[k] > hi ? ratio[k] : hi;
        }
        printf("  %-24s %7.3fx [%.3f, %.3f]  median of round medians %.4f ms\n", es[i].r.name, xf_median(ratio, rounds),
               lo, hi, xf_median(t, rounds) / 1e6);
    }
    free(ratio);
    free(t);
}

// One entry's verdict on the instance, before anything is written or
// timed: the fp64 reference's check, then (forward --weights) the outputs
// PyTorch stored in the file. --out writes the outputs with that verdict;
// a failure prints and records a row without a time. 1: passed, prepared
// and ready to time (released by the caller); 0: skipped or failed.
static int settle_entry(entry *e, xf_instance *in, const xf_options *o, const xf_machine *m, sink *out,
                        const xf_st *st, xf_check_result *res, tally *t)
{
    const xf_stage s = in->c.stage;
    char desc[256];
    xf_case_describe(&in->c, desc, sizeof desc);
    if (e->unavailable) {
        printf("%-13s %-24s %-44s unavailable: %s\n", xf_stage_name(s), e->r.name, desc, e->unavailable);
        t->skipped++;
        return 0;
    }
    if (e->note[0]) printf("note: %s %s: %s\n", xf_stage_name(s), e->r.name, e->note);
    if (xf_runner_prepare(&e->r, in) != 0) {
        printf("%-13s %-24s %-44s prepare refused this shape\n", xf_stage_name(s), e->r.name, desc);
        xf_runner_release(&e->r);
        t->skipped++;
        return 0;
    }
    xf_check_run(&e->r, in, res);
    if (st && xf_compare_with_torch(st, in, e->r.name, stdout) != 0 && res->passed) {
        res->passed = 0;
        snprintf(res->why, sizeof res->why, "the outputs differ from PyTorch's stored in the file");
    }
    if (o->out) write_outputs(o->out, in, e->r.name, res, m);
    if (res->passed) {
        t->passed++;
        return 1;
    }
    // Never a speed for a wrong result.
    char comp[512];
    composition_of(&e->r, s, comp, sizeof comp);
    xf_row_rates rates = {.roof = XF_ROOF_FMA, .pct_peak = -1, .useful_pct_peak = -1, .composition = comp};
    printf("%-13s %-24s %-44s FAILED CHECK, not timed: %s\n", xf_stage_name(s), e->r.name, desc, res->why);
    xf_report_row(out->csv, out->jsonl, in, e->r.name, e->cflags, o->threads, res, NULL, e->r.prepare_ns, &rates, m,
                  NULL);
    t->failed++;
    xf_runner_release(&e->r);
    return 0;
}

// What bench's rounds (harness/rounds.h) time: the entries that passed;
// each round's median kept per entry for the ratios.
typedef struct {
    entry *es;
    int n;
    xf_instance *in;
    const xf_check_result *res;
    const xf_options *o;
    const xf_machine *m;
    sink *out;
    int breakdown;
    double **ns; // [entry][round] medians
} bench_rounds;

static void print_round_order(void *ctx, int round, const int *order, int *live)
{
    const bench_rounds *b = ctx;
    if (b->o->rounds < 2) return;
    printf("# round %d of %d, order:", round + 1, b->o->rounds);
    for (int k = 0; k < b->n; k++)
        if (live[order[k]]) printf(" %s", b->es[order[k]].r.name);
    printf("\n");
}

static void time_in_round(void *ctx, int i, int round)
{
    const bench_rounds *b = ctx;
    xf_timing tm;
    time_entry(&b->es[i], b->in, &b->res[i], b->o, b->m, b->out, b->breakdown, &tm);
    b->ns[i][round] = tm.median_ns;
    xf_timing_free(&tm);
}

// Every entry's verdict on one instance, then the ones that passed timed
// in o->rounds interleaved rounds (seeded orders) and, with rounds, their
// speeds relative to one another. The forward command also prints the
// per-stage breakdown and compares with the model file's PyTorch outputs.
static void bench_instance(xf_instance *in, entry *es, int n, const xf_options *o,
                           const xf_machine *m, sink *out, int breakdown, const xf_st *st, tally *t)
{
    int ok[MAX_ENTRIES] = {0};
    xf_check_result res[MAX_ENTRIES];
    double *ns[MAX_ENTRIES] = {0};
    for (int i = 0; i < n; i++) {
        ok[i] = settle_entry(&es[i], in, o, m, out, st, &res[i], t);
        if (ok[i]) ns[i] = calloc((size_t)o->rounds, sizeof *ns[i]);
    }
    bench_rounds b = {es, n, in, res, o, m, out, breakdown, ns};
    const xf_round_steps steps = {print_round_order, time_in_round, &b};
    xf_rounds_run(n, o->rounds, o->order_seed ^ ((uint64_t)in->c.stage << 32), ok, &steps);
    print_round_ratios(es, ok, n, ns, o->rounds);
    for (int i = 0; i < n; i++) {
        free(ns[i]);
        if (ok[i]) xf_runner_release(&es[i].r);
    }
}

static void bench_stage(xf_stage s, const xf_options *o, const xf_machine *m, sink *out,
                        int breakdown, int *any, tally *t)
{
    entry es[MAX_ENTRIES];
    int n = select_entries(s, o, es, MAX_ENTRIES);
    if (!n) return;
    *any = 1;
    xf_instance in;
    xf_case c = xf_case_of_stage(&o->shape, s);
    build_or_die(&in, &c, m);
    bench_instance(&in, es, n, o, m, out, breakdown, NULL, t);
    xf_instance_free(&in);
}

// forward --weights: the file is read and bound before anything is printed,
// so a bad file gets its one line and nothing else.
static void load_weights(const xf_options *o, const xf_machine *m, xf_st *st, xf_instance *in)
{
    char err[400];
    if (xf_st_load(o->weights, m->mem_available, st, err, sizeof err)) xf_die_usage("%s", err);
    if (xf_instance_from_file(in, st, &o->shape, o->heads_set, err, sizeof err) ||
        (o->decode && xf_instance_decode_file(in, err, sizeof err))) {
        xf_instance_free(in);
        xf_st_free(st);
        xf_die_usage("%s: %s", o->weights, err);
    }
    refuse_oversized(&in->c, m);
}

// The cached peaks of this machine, or a short measurement (then cached).
// The roofs, with the machine's state around their measurement: a roof
// measured while something else ran is too low and every row would stand
// above it. Such roofs are flagged busy (cached so, and warned of in every
// run that uses them) until a quiet measurement replaces them: a short
// measurement under a busy loop pinned to our core once left a 56 GFLOP/s
// FMA roof, 60% of this Zen 3's, in the cache for an hour.
static int measure_peak(double seconds, FILE *log)
{
    xf_snapshot before, after;
    xf_contention state;
    xf_snapshot_take(&before, 0);
    const int rc = xf_peak_measure(&peak, seconds, log);
    xf_snapshot_take(&after, 1);
    xf_contention_of(&before, &after, &state);
    peak.busy = state.contended;
    if (rc == 0 && state.contended)
        printf("# WARNING: the machine was busy while its peak was measured (%s): the roofs may be low\n", state.why);
    return rc;
}

static void get_peak(const xf_machine *m)
{
    if (xf_peak_load(&peak, m) == 0) return;
    char path[512];
    xf_peak_cache_path(path, sizeof path);
    printf("# measuring this machine's peak (once; cached in %s; 'xfbench peak' measures longer)\n", path);
    fflush(stdout);
    if (measure_peak(0.3, NULL) == 0) xf_peak_save(&peak, m);
}

// How the peer libraries run here, as every row records it.
static void print_peers(const xf_machine *m)
{
    printf("# peers:");
    for (int p = 0; p < XF_NPEER_COLUMNS; p++) printf("%s %s %s", p ? ";" : "", xf_peer_columns[p], m->peer[p]);
    putchar('\n');
}

// Per compute-bound stage, the bf16 variants that can run here by their
// arithmetic, and those of the arithmetic with the highest measured roof
// (level: vdpbf16ps and FMA within 5%, either): what --variant best should
// end up choosing among, and where this CPU has no kernel of that kind.
static void print_bf16_arithmetic(int level)
{
    static const xf_stage compute_bound[] = {XF_LINEAR, XF_LM_HEAD, XF_ATTENTION};
    const double roof[3] = {peak.flops_1, peak.bf16_1, peak.amx_1}; // by xf_bf16_arith
    for (size_t i = 0; i < sizeof compute_bound / sizeof *compute_bound; i++) {
        char list[3][256] = {"", "", ""};
        for (int f = 0; f < xf_registry_count(); f++) {
            const xf_family *fam = xf_registry_family(f);
            if (strcmp(fam->name, "naive") == 0) continue; // the baseline, never the pick
            for (const xf_variant *v = fam->variants; v->name; v++) {
                if (v->stage != compute_bound[i] || v->dtype != XF_BF16 || xf_variant_unavailable(v)) continue;
                char *l = list[fam->bf16_arith ? fam->bf16_arith() : XF_ARITH_FMA];
                size_t len = strlen(l);
                snprintf(l + len, 256 - len, "%s%s", len ? " " : "", v->name);
            }
        }
        int top = -1;
        for (int k = 0; k < 3; k++)
            if (*list[k] && roof[k] > 0 && (top < 0 || roof[k] > roof[top])) top = k;
        char pick[3 * 256] = "none";
        if (top >= 0) snprintf(pick, sizeof pick, "%s", list[top]);
        if (level && top >= 0 && top != XF_ARITH_AMX && *list[XF_ARITH_DOT] && *list[XF_ARITH_FMA])
            snprintf(pick, sizeof pick, "%s %s", list[XF_ARITH_DOT], list[XF_ARITH_FMA]);
        printf("  bf16 %-10s vdpbf16ps: %-20s AMX: %-8s FMA on widened bf16: %-24s -> %s\n",
               xf_stage_name(compute_bound[i]), *list[XF_ARITH_DOT] ? list[XF_ARITH_DOT] : "(none here)",
               *list[XF_ARITH_AMX] ? list[XF_ARITH_AMX] : "(none)", *list[XF_ARITH_FMA] ? list[XF_ARITH_FMA] : "(none here)",
               pick);
    }
}

static int cmd_peak(const xf_machine *m)
{
    char path[512];
    xf_peak_cache_path(path, sizeof path);
    printf("# %s | %s | %s\n", m->cpu, m->isa, m->compiler);
    print_peers(m);
    if (measure_peak(1.0, stdout) != 0) {
        printf("the roofs could not be measured (out of memory?); nothing cached\n");
        return 1;
    }
    xf_peak_save(&peak, m);
    const xf_blocking *b = xf_blocking_get();
    printf("blocking from the caches (variants/isa/blocking.c): gemm B block %zu KiB, A block %zu KiB, k slice",
           b->gemm_b_block >> 10, b->gemm_a_block >> 10);
    for (int i = 0; i < xf_registry_count(); i++)
        if (xf_registry_family(i)->gemm_nr)
            printf(" %d (%s)", xf_gemm_kc(xf_registry_family(i)->gemm_nr), xf_registry_family(i)->name);
    printf("; streaming stores from %zu MiB read+written; libxsmm k slice %d; omp chunks of %zu KiB of rows\n",
           b->stream_working_set >> 20, b->xsmm_kc, b->chunk >> 10);
    if (peak.bf16_1 > 0) {
        printf("peak: bf16 dot product %.1f GFLOP/s on 1 thread (%s), %.1f on %d\n", peak.bf16_1, peak.bf16_family,
               peak.bf16_all, peak.procs);
        // Which arithmetic pays for bf16 storage here, from the two roofs:
        // the compute-bound stages run at the faster one; the rest move
        // bytes, which bf16 halves whatever the arithmetic.
        const double ratio = peak.bf16_1 / peak.flops_1;
        const int dot = ratio > 1.05, level = !dot && ratio >= 0.95;
        printf("bf16 arithmetic here: the dot product runs at %.2fx the fp32 FMA roof, so bf16 linear, lm_head and"
               " attention%s should %s; embed, softmax, add_layernorm and rmsnorm are memory-bound (bf16 halves their"
               " bytes either way)\n",
               ratio, peak.amx_1 > 0 ? ", where they do not run on AMX," : "",
               dot ? "compute with vdpbf16ps" : level ? "do either (the roofs are level)" : "widen to fp32 and use FMA");
        if (peak.amx_1 > 0)
            printf("bf16 on AMX here: %.1f GFLOP/s on 1 thread (%.1fx the FMA roof), %.1f on %d; the amx family and"
                   " oneDNN (from avx512_core_amx) compute on it, and their rows are held against this roof\n",
                   peak.amx_1, peak.amx_1 / peak.flops_1, peak.amx_all, peak.procs);
        print_bf16_arithmetic(level);
    }
    printf("peak: FMA %.1f GFLOP/s on 1 thread (%s), %.1f on %d; DRAM triad %.1f GB/s on 1, %.1f on %d; DRAM read"
           " %.1f GB/s on 1, %.1f on %d; cached in %s (each roof the highest measured on this machine; compute"
           " roofs per cycle, at %.2f GHz: 0 unknown)\n",
           peak.flops_1, peak.flops_family, peak.flops_all, peak.procs, peak.bw_1[XF_ROOF_DRAM],
           peak.bw_all[XF_ROOF_DRAM], peak.procs, peak.rd_1[XF_ROOF_DRAM], peak.rd_all[XF_ROOF_DRAM], peak.procs, path, peak.ghz);
    return 0;
}

static int cmd_bench(const xf_options *o, const xf_machine *m, int breakdown)
{
    xf_st st;
    xf_instance file_in;
    if (o->weights) load_weights(o, m, &st, &file_in);
    sink out = {0};
    const char *why = NULL;
    if (o->csv && !(out.csv = xf_csv_open(o->csv, &why))) xf_die_usage("--csv '%s': %s", o->csv, why);
    if (o->jsonl && !(out.jsonl = fopen(o->jsonl, "a"))) xf_die_usage("--jsonl '%s': cannot open it for appending", o->jsonl);
    printf("# %s | %s | %s | commit %s | %d thread(s) | medians of >= %d runs and >= %.2g s\n",
           m->cpu, m->isa, m->compiler, m->commit, o->threads, o->min_reps, o->min_time);
    if (o->rounds > 1) printf("# %d interleaved rounds, random orders from --order-seed %llu\n", o->rounds,
                              (unsigned long long)o->order_seed);
    print_peers(m);
    get_peak(m);
    if (peak.busy)
        printf("# WARNING: these roofs were measured while the machine was busy: %%peak may read high; 'xfbench peak'"
               " on a quiet machine measures them again\n");
    char at_clock[96] = "";
    if (peak.ghz > 0)
        snprintf(at_clock, sizeof at_clock, " at %.2f GHz, scaled to the clock read around each case", peak.ghz);
    printf("# roofs for %d thread(s): FMA %.1f GFLOP/s (%s vectors%s); triad GB/s L1 %.1f, L2 %.1f, L3 %.1f, DRAM %.1f;"
           " %%peak: embed, softmax, add_layernorm against the level holding their bytes (roof), the rest"
           " useful GFLOP/s against the lower of FMA and that level's bandwidth x useful FLOPs per byte (decoding:"
           " read-only bandwidth, DRAM %.1f GB/s)\n",
           o->threads, xf_peak_flops(&peak, o->threads), peak.flops_family, at_clock,
           xf_peak_bw(&peak, XF_ROOF_L1, o->threads),
           xf_peak_bw(&peak, XF_ROOF_L2, o->threads), xf_peak_bw(&peak, XF_ROOF_L3, o->threads),
           xf_peak_bw(&peak, XF_ROOF_DRAM, o->threads), xf_peak_read_bw(&peak, XF_ROOF_DRAM, o->threads));
    if (o->shape.dtype == XF_BF16)
        printf("# bf16 rows: compute roof the bf16 dot product's %.1f GFLOP/s (%s) for kernels that compute with"
               " it, the FMA roof for those that widen to fp32; a composition mixing them the higher of the two;"
               " AMX's %.1f GFLOP/s (0: not measured, no %%peak) for rows that ran on it\n",
               xf_peak_flops_of(&peak, XF_BF16, o->threads),
               peak.bf16_family[0] ? peak.bf16_family : "none here: the fp32 FMA roof",
               xf_peak_amx_at(&peak, o->threads, 0.0));
    printf("%-13s %-24s %-44s %10s %10s %6s %8s %8s %8s %7s %-8s %9s  %s\n", "stage", "variant", "shape",
           "median_ms", "min_ms", "sprd%", "GFLOP/s", "useful", "GB/s", "%peak", "roof", "prep_ms", "check");
    int any = 0;
    tally t = {0, 0, 0};
    if (o->weights) {
        entry es[MAX_ENTRIES];
        int n = select_entries(o->decode ? XF_GENERATE : XF_FORWARD, o, es, MAX_ENTRIES);
        any = n > 0;
        bench_instance(&file_in, es, n, o, m, &out, breakdown, &st, &t);
        xf_instance_free(&file_in);
        xf_st_free(&st);
    } else {
        for (int s = 0; s < XF_NSTAGES; s++)
            if (stage_selected(o, s))
                bench_stage((xf_stage)s, o, m, &out, breakdown, &any, &t);
    }
    if (out.csv) fclose(out.csv);
    if (out.jsonl) fclose(out.jsonl);
    if (!any) xf_die_usage("the --stage and --variant filters select no case");
    if (out.contended)
        printf("# %d measurement(s) contended%s\n", out.contended, o->strict ? ", not recorded (--strict)" : "");
    if (t.failed) return 1;
    if (out.refused) return 3;
    return t.passed ? 0 : 77; // 77: nothing selected can run here (meson: skip)
}

// forward's options: the pass (or, with --decode, generate) of a model
// file or of seeded weights, in the given families (naive by default).
static void forward_options(xf_options *o)
{
    if (strcmp(o->stages, "all")) xf_die_usage("forward runs the forward stage; --stage does not apply");
    if (o->decode && !o->weights)
        xf_die_usage("--decode decodes a model file: give --weights (random models: bench --stage generate)");
    o->stages = o->decode ? "generate" : "forward";
    if (!o->variants) o->variants = "naive";
    if (o->out && strchr(o->variants, ',')) xf_die_usage("--out takes the outputs of one variant; give one --variant");
}

static int run_list(const xf_options *o, const xf_machine *m) { return (void)o, (void)m, cmd_list(); }
static int run_check(const xf_options *o, const xf_machine *m) { return cmd_check(o, m); }
static int run_bench(const xf_options *o, const xf_machine *m) { return cmd_bench(o, m, 0); }
static int run_forward(const xf_options *o, const xf_machine *m) { return cmd_bench(o, m, 1); }
static int run_peak(const xf_options *o, const xf_machine *m) { return (void)o, cmd_peak(m); }

// The commands (compare, which reads CSVs and runs nothing, is dispatched
// before options are parsed; xf_usage holds the help text).
typedef struct {
    const char *name;
    int (*run)(const xf_options *o, const xf_machine *m);
    void (*options)(xf_options *o); // the command's own option rules, or NULL
    int pins_threads;               // measures on every thread, so pins them even with --threads 1
    int needs_machine;              // the machine read and the selection validated first
} command;

static const command commands[] = {
    {"list", run_list, NULL, 0, 0},           {"check", run_check, NULL, 0, 1},
    {"bench", run_bench, NULL, 0, 1},         {"forward", run_forward, forward_options, 0, 1},
    {"peak", run_peak, NULL, 1, 1},
};

int xf_main(int argc, char **argv)
{
    prog = basename(argv[0]);
    if (argc >= 2 && !strcmp(argv[1], "compare")) return xf_compare_main(argc - 2, argv + 2);
    xf_options o;
    xf_options_parse(argc, argv, &o);
    if (o.help) {
        xf_usage(o.command);
        return 0;
    }
    const command *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(o.command, commands[i].name)) cmd = &commands[i];
    if (!cmd) xf_die_usage("unknown command '%s' (try 'xfbench --help')", o.command);
    if (cmd->options)
        cmd->options(&o);
    else if (o.weights || o.out || o.decode)
        xf_die_usage("--weights, --out and --decode belong to the forward command");
    // Threads are pinned (close, one per core) unless the user chose
    // otherwise: unpinned, this kind of VM sometimes runs two threads on one
    // core and silently halves a 2-thread result. The OpenMP runtime reads
    // these variables when the program starts, so set them and start again.
    // XFBENCH_MAX_ISA caps the peers too (variants/isa/isa.h), so that a
    // capped run imitates the smaller CPU end to end.
    const char *isa_err = xf_isa_env_error();
    if (isa_err) xf_die_usage("%s", isa_err);
    const char *caches_err = xf_caches_env_error();
    if (caches_err) xf_die_usage("%s", caches_err);
    // Read once here, before any thread: the kernels' threads read them
    // (caches.c and blocking.c fill them on the first call).
    (void)xf_blocking_get();
    const char *ref = getenv("XFBENCH_REF");
    if (ref && strcmp(ref, "plain") && strcmp(ref, "fast"))
        xf_die_usage("XFBENCH_REF='%s' is not plain or fast (the fp64 reference's loops)", ref);
    int restart = xf_isa_cap_peers();
    for (int i = 0; i < xf_registry_count(); i++)
        if (xf_registry_family(i)->raise_dispatch) restart |= xf_registry_family(i)->raise_dispatch();
    if ((o.threads > 1 || cmd->pins_threads) && !getenv("OMP_PROC_BIND") && !getenv("OMP_PLACES")) {
        setenv("OMP_PROC_BIND", "close", 1);
        setenv("OMP_PLACES", "cores", 1);
        restart = 1;
    }
    if (restart) execv("/proc/self/exe", argv); // on failure, carry on (unpinned, OpenBLAS uncapped)
    // Every command runs after the peers' caps took effect: under
    // XFBENCH_MAX_ISA=avx2 on an AVX512_BF16 CPU, oneDNN's bf16 matmul is as
    // unavailable to list as to bench (listed ok before the cap, it failed
    // bench-csv's count).
    if (!cmd->needs_machine) return cmd->run(&o, NULL);
    validate_selection(&o);
#ifdef _OPENMP
    omp_set_num_threads(o.threads);
#endif
    for (int i = 0; i < xf_registry_count(); i++)
        if (xf_registry_family(i)->set_threads) xf_registry_family(i)->set_threads(o.threads);
    xf_machine m;
    xf_machine_read(&m);
    best_machine = &m;
    if (!o.grid) refuse_oversized_shape(&o, &m);
    return cmd->run(&o, &m);
}
