// xfbench check: every selected variant against the fp64 reference, on one
// shape or a grid; one PASS or FAIL line each with its repro command.
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "commands.h"
#include "grid.h"
#include "report.h"

static void print_check(const char *status, const xf_case *c, const xf_entry *e,
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
    printf("  repro: %s check %s --variant %s\n", xf_prog_name, opts, e->r.name);
}

// Checks one case against every selected variant. A case of a lower
// precision also reports its distance from the fp32 model: the same case
// in fp32, whose reference reads the unrounded draws.
static void check_case(const xf_case *c, xf_entry *es, int n, const xf_machine *m, xf_tally *t)
{
    xf_instance in, f32;
    int have_f32 = 0, any = 0; // the fp32 twin: built when a variant first ran
    for (int i = 0; i < n; i++) any |= !es[i].unavailable;
    if (any) xf_build_or_die(&in, c, m); // nothing to build for a case every variant skips
    for (int i = 0; i < n; i++) {
        xf_entry *e = &es[i];
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
            xf_build_or_die(&f32, &c32, m);
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

int xf_cmd_check(const xf_options *o, const xf_machine *m)
{
    xf_tally t = {0, 0, 0};
    int selected = 0;
    for (int s = 0; s < XF_NSTAGES; s++) {
        if (!xf_stage_selected(o, s)) continue;
        xf_entry es[XF_MAX_ENTRIES];
        int n = xf_select_entries((xf_stage)s, o, m, es, XF_MAX_ENTRIES);
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
