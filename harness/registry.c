#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "registry.h"
#include "stages/stage.h"
#include "xf_families.h"

enum { MAX_FAMILIES = 24 };
// The families meson built (its list, generated into xf_families.h); naive
// always, first.
#define DECLARE_(name) extern const xf_family xf_family_##name;
XF_BUILT_FAMILIES(DECLARE_)
#define ENTRY_(name) &xf_family_##name,
static const xf_family *families[MAX_FAMILIES] = {XF_BUILT_FAMILIES(ENTRY_)};
#define COUNT_(name) +1
static int nfamilies = 0 XF_BUILT_FAMILIES(COUNT_);

void xf_registry_add(const xf_family *f)
{
    if (nfamilies == MAX_FAMILIES) { // a build error, never a family silently left out
        fprintf(stderr, "xfbench: more than %d families: raise MAX_FAMILIES (harness/registry.c)\n", MAX_FAMILIES);
        exit(2);
    }
    families[nfamilies++] = f;
}

int xf_registry_count(void) { return nfamilies; }
const xf_family *xf_registry_family(int i) { return families[i]; }

const xf_family *xf_registry_find_family(const char *name)
{
    for (int i = 0; i < nfamilies; i++)
        if (strcmp(families[i]->name, name) == 0) return families[i];
    return NULL;
}

const xf_variant *xf_registry_find(xf_stage stage, const char *name)
{
    for (int i = 0; i < nfamilies; i++)
        for (const xf_variant *v = families[i]->variants; v->name; v++)
            if (v->stage == stage && strcmp(v->name, name) == 0) return v;
    return NULL;
}

const xf_variant *xf_registry_find_dtype(xf_stage stage, const char *name, xf_dtype d)
{
    for (int i = 0; i < nfamilies; i++)
        for (const xf_variant *v = families[i]->variants; v->name; v++)
            if (v->stage == stage && v->dtype == d && strcmp(v->name, name) == 0) return v;
    return NULL;
}


const char *xf_variant_unavailable(const xf_variant *v)
{
    return v->unavailable ? v->unavailable() : NULL;
}

// A composition of dtype d composes (and lends) variants of dtype d only
// (docs/design.md, Precision).
static const xf_variant *family_default(const xf_family *f, xf_stage stage, xf_dtype d)
{
    for (const xf_variant *v = f->variants; v->name; v++)
        if (v->stage == stage && v->dtype == d && !xf_variant_unavailable(v)) return v;
    return NULL;
}

// Why none of the family's own variants of stage can run here (the first
// one's reason), or NULL if it has none of that stage at all.
static const char *family_missing(const xf_family *f, xf_stage stage, xf_dtype d)
{
    for (const xf_variant *v = f->variants; v->name; v++)
        if (v->stage == stage && v->dtype == d) return xf_variant_unavailable(v);
    return NULL;
}

int xf_family_composes(const xf_family *f, xf_stage compound, xf_dtype d)
{
    for (const xf_variant *v = f->variants; v->name; v++)
        if (v->stage < XF_FIRST_COMPOUND && v->dtype == d && xf_compound_calls(compound, v->stage)) return 1;
    return 0;
}

int xf_compound_calls(xf_stage compound, xf_stage prim) { return xf_stage_desc_of(compound)->calls(prim); }

// What a family without a kernel for a primitive stage borrows: this
// project's tuned kernel for the CPU (the omp family on several threads,
// else the widest SIMD family the CPU and XFBENCH_MAX_ISA allow), never
// naive while one of them runs: a peer's row must compare the peer's
// library, not the scalar baseline. In bf16: the bf16 families.
static const xf_variant *lender(xf_stage stage, int threads, xf_dtype d)
{
    static const char *const order[] = {"omp", "avx512", "avx2", "avx512bf16", "avx512bf16w", "avx2bf16"};
    for (int i = d == XF_BF16 ? 3 : threads > 1 ? 0 : 1; i < (d == XF_BF16 ? 6 : 3); i++) {
        const xf_family *f = xf_registry_find_family(order[i]);
        const xf_variant *v = f ? family_default(f, stage, d) : NULL;
        if (v) return v;
    }
    return family_default(&xf_family_naive, stage, d);
}

// An emulated family borrows emulated kernels first (avx512bf16-emu
// avx512bf16w-emu's), so that its compositions check emulated code
// end to end; never a mutant's.
static const xf_variant *emulated_lender(xf_stage stage, xf_dtype d)
{
    for (int i = 0; i < nfamilies; i++) {
        const xf_variant *v = families[i]->emulated && strncmp(families[i]->name, "mutant", 6)
                                  ? family_default(families[i], stage, d)
                                  : NULL;
        if (v) return v;
    }
    return NULL;
}

static void add_note(char *note, size_t note_size, const char *fmt, const char *a, const char *b,
                     const char *c)
{
    if (!note_size) return;
    size_t len = strlen(note);
    if (len + 2 >= note_size) return;
    if (len) snprintf(note + len, note_size - len, "; ");
    len = strlen(note);
    snprintf(note + len, note_size - len, fmt, a, b, c);
}

// --use overrides into ops->op; 0, or -1 with err.
static int apply_use(const char *use, xf_dtype d, xf_ops *ops, int *overridden, char *err, size_t err_size)
{
    if (!use || !*use) return 0;
    char item[128];
    for (const char *p = use; xf_list_next(&p, item, sizeof item);) {
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, err_size, "--use item '%s' is not stage=variant", item);
            return -1;
        }
        *eq = '\0';
        int s = xf_stage_from_name(item);
        if (s < 0 || s >= XF_FIRST_COMPOUND) {
            snprintf(err, err_size, "--use: '%s' is not a primitive stage", item);
            return -1;
        }
        // the name in the case's dtype (naive, dnnl: one name, both dtypes), else in any, for the message
        const xf_variant *v = xf_registry_find_dtype((xf_stage)s, eq + 1, d);
        if (!v) v = xf_registry_find((xf_stage)s, eq + 1);
        if (!v) {
            snprintf(err, err_size, "--use: no %s variant named '%s'", item, eq + 1);
            return -1;
        }
        const char *why = xf_variant_unavailable(v);
        if (why) {
            snprintf(err, err_size, "--use: %s variant '%s' is unavailable: %s", item, eq + 1, why);
            return -1;
        }
        if (v->dtype != d) {
            snprintf(err, err_size, "--use: %s variant '%s' runs %s, the case is %s", item, eq + 1,
                     xf_dtype_name(v->dtype), xf_dtype_name(d));
            return -1;
        }
        ops->op[s] = v;
        overridden[s] = 1;
    }
    return 0;
}

int xf_ops_for_family(const char *family, const char *use, xf_stage compound, xf_dtype d, int threads, xf_ops *ops,
                      char *note, size_t note_size, char *err, size_t err_size)
{
    const xf_family *f = xf_registry_find_family(family);
    if (!f) {
        snprintf(err, err_size, "unknown variant family '%s' for a compound stage", family);
        return -1;
    }
    if (note_size) note[0] = '\0';
    memset(ops, 0, sizeof *ops);
    if (!xf_family_composes(f, compound, d)) { // it would be all borrowed kernels under its name
        snprintf(err, err_size, "family '%s' has no %s variant of what %s calls", family, xf_dtype_name(d),
                 xf_stage_name(compound));
        return 1;
    }
    int overridden[XF_FIRST_COMPOUND] = {0};
    if (apply_use(use, d, ops, overridden, err, err_size)) return -1;
    for (int s = 0; s < XF_FIRST_COMPOUND; s++) {
        if (overridden[s]) continue;
        ops->op[s] = family_default(f, (xf_stage)s, d);
        if (ops->op[s]) continue;
        const char *why = family_missing(f, (xf_stage)s, d);
        if (why && xf_compound_calls(compound, (xf_stage)s)) {
            // The family has this stage but cannot run it here: the
            // composition would run someone else's code under its name.
            snprintf(err, err_size, "its %s cannot run here: %s", xf_stage_name((xf_stage)s), why);
            return 1;
        }
        ops->op[s] = f->emulated ? emulated_lender((xf_stage)s, d) : NULL;
        if (!ops->op[s]) ops->op[s] = lender((xf_stage)s, threads, d);
        if (!ops->op[s] && xf_compound_calls(compound, (xf_stage)s)) {
            snprintf(err, err_size, "no %s variant of %s runs here", xf_dtype_name(d), xf_stage_name((xf_stage)s));
            return 1;
        }
        if (xf_compound_calls(compound, (xf_stage)s))
            add_note(note, note_size, "%s: %s has none, using %s", xf_stage_name((xf_stage)s), family,
                     ops->op[s]->name);
    }
    return 0;
}

void xf_ops_composition(const xf_ops *ops, xf_stage compound, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int s = 0; s < XF_FIRST_COMPOUND && len < size; s++)
        if (xf_compound_calls(compound, (xf_stage)s) && ops->op[s])
            len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", len ? ";" : "",
                                    xf_stage_name((xf_stage)s), ops->op[s]->name);
}
