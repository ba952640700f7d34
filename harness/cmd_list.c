// xfbench list: every stage's variants and compositions, with their
// status on this CPU (ok, emulated, n/a and why) and their build flags.
#include <stdio.h>

#include "commands.h"
#include "registry.h"

int xf_cmd_list(void)
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
