// What a run selects: the stages and variants --stage and --variant name,
// checked against the registry before anything runs (a name that selects
// nothing is an error, never an empty run), and the cases they run on,
// refused with the bytes they need where they would not fit in memory.
#include <string.h>

#include "best.h"
#include "commands.h"
#include "registry.h"
#include "report.h"
#include "stages/stage.h"

static int in_list(const char *list, const char *name)
{
    if (!list || !strcmp(list, "all")) return 1;
    char item[128];
    for (const char *p = list; xf_list_next(&p, item, sizeof item);)
        if (!strcmp(item, name)) return 1;
    return 0;
}

// --stage: a stage named, "all", or "primitives" (every primitive stage).
int xf_stage_selected(const xf_options *o, int s)
{
    return in_list(o->stages, xf_stage_name((xf_stage)s)) || (s < XF_FIRST_COMPOUND && in_list(o->stages, "primitives"));
}

// A case runs the variants of its own dtype (docs/design.md, Precision);
// compound stages the compositions of families with variants of it.
int xf_select_entries(xf_stage stage, const xf_options *o, const xf_machine *m, xf_entry *out, int max)
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
                xf_entry *e = &out[n++];
                memset(e, 0, sizeof *e);
                e->r.v = v, e->r.name = v->name, e->cflags = fam->cflags;
                e->unavailable = xf_variant_unavailable(v);
            }
        } else if (in_list(o->variants, fam->name) && n < max && xf_family_composes(fam, stage, o->shape.dtype)) {
            xf_entry *e = &out[n++];
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
        xf_entry *e = &out[n++];
        memset(e, 0, sizeof *e);
        const xf_best_settings how = {o->shape.pad, o->shape.dtype, o->threads, o->retune, o->tune_time};
        xf_best_ops(&e->r.ops, m, &how);
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
void xf_validate_selection(const xf_options *o)
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
            if (!xf_stage_selected(o, s)) continue;
            found = xf_registry_find_family(name) != NULL ||
                    (s < XF_FIRST_COMPOUND && xf_registry_find((xf_stage)s, name) != NULL) ||
                    (s >= XF_FIRST_COMPOUND && !strcmp(name, "best"));
        }
        if (!found) xf_die_usage("no variant named '%s' for the selected stages (see 'xfbench list')", name);
    }
}

// Refuses a case that would not fit in memory, naming the bytes it needs.
void xf_refuse_oversized(const xf_case *c, const xf_machine *m)
{
    double need = xf_case_bytes(c);
    char desc[256];
    xf_case_describe(c, desc, sizeof desc);
    if (need > m->mem_available)
        xf_die_usage("%s %s needs about %.0f bytes, more than the %.0f bytes available",
                     xf_stage_name(c->stage), desc, need, m->mem_available);
}

// The one-shape commands refuse before printing anything.
void xf_refuse_oversized_shape(const xf_options *o, const xf_machine *m)
{
    for (int s = 0; s < XF_NSTAGES; s++) {
        if (!xf_stage_selected(o, s)) continue;
        xf_case c = xf_case_of_stage(&o->shape, (xf_stage)s);
        xf_refuse_oversized(&c, m);
    }
}

void xf_build_or_die(xf_instance *in, const xf_case *c, const xf_machine *m)
{
    xf_refuse_oversized(c, m);
    if (xf_instance_build(in, c) != 0)
        xf_die_usage("%s: out of memory allocating about %.0f bytes", xf_stage_name(c->stage),
                     xf_case_bytes(c));
}
