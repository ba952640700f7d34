// xfbench bench and forward: each selected variant checked, then (if it
// passed) timed, in interleaved rounds when asked, and written to the CSV
// and JSONL; a variant that failed its check gets a row without a time.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "contention.h"
#include "model_file.h"
#include "rates.h"
#include "registry.h"
#include "report.h"
#include "stages/stage.h"
#include "stats.h"
#include "torch_compare.h"

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

static void print_breakdown(const xf_entry *e, const xf_timing *tm)
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

// Where rows go, the roofs they are held against, and what bench counts
// across instances.
typedef struct {
    FILE *csv, *jsonl;
    const xf_peak *peak;
    int contended;      // cases timed while the machine was busy
    int refused;        // of those, not recorded (--strict)
} sink;

// Entry e timed, and timed again (up to retime times) while the machine
// disturbed it: such a timing says nothing about the kernel, so it is set
// aside (said here and in the row) as a user told "rerun on a quiet
// machine" would. A machine that stays busy keeps every attempt contended,
// and the last one is flagged as before.
static void time_retimed(xf_entry *e, xf_instance *in, const xf_timer_opts *to, int retime, xf_timing *tm)
{
    char set_aside[sizeof tm->set_aside] = ""; // xf_time clears tm's
    int attempts = 1;
    for (xf_time(&e->r, in, to, tm); tm->state.contended && attempts <= retime; attempts++) {
        xf_append(set_aside, sizeof set_aside, "%sattempt %d: %s", set_aside[0] ? "; " : "", attempts, tm->state.why);
        // Printed now, before the row it belongs to: named so it is not read
        // as a note on the row above.
        printf("  (%s %s: timing set aside, contended (%s); timing again)\n", xf_stage_name(in->c.stage), e->r.name,
               tm->state.why);
        fflush(stdout);
        xf_timing_free(tm);
        xf_time(&e->r, in, to, tm);
    }
    tm->attempts = attempts;
    snprintf(tm->set_aside, sizeof tm->set_aside, "%s", set_aside);
}

// One timed measurement of entry e: printed, recorded (unless --strict
// refuses a contended one).
static void time_entry(xf_entry *e, xf_instance *in, const xf_check_result *r, const xf_options *o,
                       const xf_machine *m, sink *out, int breakdown, xf_timing *tm)
{
    const xf_stage s = in->c.stage;
    char desc[256], comp[512];
    xf_case_describe(&in->c, desc, sizeof desc);
    xf_composition_of(&e->r, s, comp, sizeof comp);
    xf_timer_opts to = {o->min_time, o->min_reps, 0};
    void (*timed_mode)(xf_instance *, int) = xf_stage_desc_of(s)->timed_mode;
    if (timed_mode) timed_mode(in, 1);
    time_retimed(e, in, &to, o->retime, tm);
    if (timed_mode) timed_mode(in, 0);
    xf_row_rates rates = xf_rates_of(out->peak, in, tm, o->threads, &e->r);
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
        printf("  WARNING: contended while timed (%s)%s%s\n", tm->state.why, tm->attempts > 1 ? " in every attempt" : "",
               o->strict ? ": not recorded (--strict)" : ": recorded with contended=1; rerun on a quiet machine, a core per thread");
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
static void print_round_ratios(xf_entry *es, const int *ok, int n, double *const *ns, int rounds)
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
static int settle_entry(xf_entry *e, xf_instance *in, const xf_options *o, const xf_machine *m, sink *out,
                        const xf_st *st, xf_check_result *res, xf_tally *t)
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
    xf_composition_of(&e->r, s, comp, sizeof comp);
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
    xf_entry *es;
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
static void bench_instance(xf_instance *in, xf_entry *es, int n, const xf_options *o,
                           const xf_machine *m, sink *out, int breakdown, const xf_st *st, xf_tally *t)
{
    int ok[XF_MAX_ENTRIES] = {0};
    xf_check_result res[XF_MAX_ENTRIES];
    double *ns[XF_MAX_ENTRIES] = {0};
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
                        int breakdown, int *any, xf_tally *t)
{
    xf_entry es[XF_MAX_ENTRIES];
    int n = xf_select_entries(s, o, m, es, XF_MAX_ENTRIES);
    if (!n) return;
    *any = 1;
    xf_instance in;
    xf_case c = xf_case_of_stage(&o->shape, s);
    xf_build_or_die(&in, &c, m);
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
    xf_refuse_oversized(&in->c, m);
}

int xf_cmd_bench(const xf_options *o, const xf_machine *m, int breakdown)
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
    xf_print_peers(m);
    const xf_peak *peak = out.peak = xf_app_peak(m);
    if (peak->busy)
        printf("# WARNING: these roofs were measured while the machine was busy: %%peak may read high; 'xfbench peak'"
               " on a quiet machine measures them again\n");
    char at_clock[96] = "";
    if (peak->ghz > 0)
        snprintf(at_clock, sizeof at_clock, " at %.2f GHz, scaled to the clock read around each case", peak->ghz);
    printf("# roofs for %d thread(s): FMA %.1f GFLOP/s (%s vectors%s); triad GB/s L1 %.1f, L2 %.1f, L3 %.1f, DRAM %.1f;"
           " %%peak: embed, softmax, add_layernorm against the level holding their bytes (roof), the rest"
           " useful GFLOP/s against the lower of FMA and that level's bandwidth x useful FLOPs per byte (decoding:"
           " read-only bandwidth, DRAM %.1f GB/s)\n",
           o->threads, xf_peak_flops(peak, o->threads), peak->flops_family, at_clock,
           xf_peak_bw(peak, XF_ROOF_L1, o->threads),
           xf_peak_bw(peak, XF_ROOF_L2, o->threads), xf_peak_bw(peak, XF_ROOF_L3, o->threads),
           xf_peak_bw(peak, XF_ROOF_DRAM, o->threads), xf_peak_read_bw(peak, XF_ROOF_DRAM, o->threads));
    if (o->shape.dtype == XF_BF16)
        printf("# bf16 rows: compute roof the bf16 dot product's %.1f GFLOP/s (%s) for kernels that compute with"
               " it, the FMA roof for those that widen to fp32; a composition mixing them the higher of the two;"
               " AMX's %.1f GFLOP/s (0: not measured, no %%peak) for rows that ran on it\n",
               xf_peak_flops_of(peak, XF_BF16, o->threads),
               peak->bf16_family[0] ? peak->bf16_family : "none here: the fp32 FMA roof",
               xf_peak_amx_at(peak, o->threads, 0.0));
    printf("%-13s %-24s %-44s %10s %10s %6s %8s %8s %8s %7s %-8s %9s  %s\n", "stage", "variant", "shape",
           "median_ms", "min_ms", "sprd%", "GFLOP/s", "useful", "GB/s", "%peak", "roof", "prep_ms", "check");
    int any = 0;
    xf_tally t = {0, 0, 0};
    if (o->weights) {
        xf_entry es[XF_MAX_ENTRIES];
        int n = xf_select_entries(o->decode ? XF_GENERATE : XF_FORWARD, o, m, es, XF_MAX_ENTRIES);
        any = n > 0;
        bench_instance(&file_in, es, n, o, m, &out, breakdown, &st, &t);
        xf_instance_free(&file_in);
        xf_st_free(&st);
    } else {
        for (int s = 0; s < XF_NSTAGES; s++)
            if (xf_stage_selected(o, s))
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
void xf_forward_options(xf_options *o)
{
    if (strcmp(o->stages, "all")) xf_die_usage("forward runs the forward stage; --stage does not apply");
    if (o->decode && !o->weights)
        xf_die_usage("--decode decodes a model file: give --weights (random models: bench --stage generate)");
    o->stages = o->decode ? "generate" : "forward";
    if (!o->variants) o->variants = "naive";
    if (o->out && strchr(o->variants, ',')) xf_die_usage("--out takes the outputs of one variant; give one --variant");
}
