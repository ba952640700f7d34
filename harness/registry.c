#include <stdio.h>
#include <string.h>

#include "registry.h"

enum { MAX_FAMILIES = 16 };
// The families meson could build (XF_HAVE_*); naive always.
static const xf_family *families[MAX_FAMILIES] = {
    &xf_family_naive,
#ifdef XF_HAVE_AVX2
    &xf_avx2_family,
#endif
#ifdef XF_HAVE_AVX512
    &xf_avx512_family,
#endif
#ifdef XF_HAVE_OMP
    &xf_family_omp,
#endif
#ifdef XF_HAVE_LIBXSMM
    &xf_family_libxsmm,
#endif
#ifdef XF_HAVE_BLAS
    &xf_family_blas,
#endif
#ifdef XF_HAVE_DNNL
    &xf_family_dnnl,
#endif
};
static int nfamilies = 1
#ifdef XF_HAVE_AVX2
                       + 1
#endif
#ifdef XF_HAVE_AVX512
                       + 1
#endif
#ifdef XF_HAVE_OMP
                       + 1
#endif
#ifdef XF_HAVE_LIBXSMM
                       + 1
#endif
#ifdef XF_HAVE_BLAS
                       + 1
#endif
#ifdef XF_HAVE_DNNL
                       + 1
#endif
    ;

void xf_registry_add(const xf_family *f)
{
    if (nfamilies < MAX_FAMILIES) families[nfamilies++] = f;
}

int xf_registry_count(void) { return nfamilies; }
const xf_family *xf_registry_family(int i) { return families[i]; }

const xf_family *xf_registry_find_family(const char *name)
{
    for (int i = 0; i < nfamilies; i++)
        if (strcmp(families[i]->name, name) == 0) return families[i];
    return NULL;
}

const xf_family *xf_registry_family_of(const xf_variant *v)
{
    return xf_registry_find_family(v->family);
}

const xf_variant *xf_registry_find(xf_stage stage, const char *name)
{
    for (int i = 0; i < nfamilies; i++)
        for (const xf_variant *v = families[i]->variants; v->name; v++)
            if (v->stage == stage && strcmp(v->name, name) == 0) return v;
    return NULL;
}

const char *xf_variant_unavailable(const xf_variant *v)
{
    return v->unavailable ? v->unavailable() : NULL;
}

static const xf_variant *family_default(const xf_family *f, xf_stage stage)
{
    for (const xf_variant *v = f->variants; v->name; v++)
        if (v->stage == stage && !xf_variant_unavailable(v)) return v;
    return NULL;
}

// Which primitives a compound stage calls (variants/compose/compose.c).
static int calls(xf_stage compound, xf_stage prim)
{
    if (prim == XF_SOFTMAX) return 0; // inside attention
    if (compound == XF_FFN) return prim == XF_LINEAR;
    return prim != XF_EMBED || compound == XF_FORWARD;
}

int xf_ops_for_family(const char *family, const char *use, xf_stage compound, xf_ops *ops,
                      char *note, size_t note_size, char *err, size_t err_size)
{
    const xf_family *f = xf_registry_find_family(family);
    if (!f) {
        snprintf(err, err_size, "unknown variant family '%s' for a compound stage", family);
        return -1;
    }
    if (note_size) note[0] = '\0';
    for (int s = 0; s < XF_FIRST_COMPOUND; s++) {
        ops->op[s] = family_default(f, (xf_stage)s);
        if (!ops->op[s]) {
            ops->op[s] = family_default(&xf_family_naive, (xf_stage)s);
            if (!calls(compound, (xf_stage)s)) continue;
            size_t len = strlen(note);
            snprintf(note + len, note_size - len, "%s%s: %s has none available, using naive",
                     len ? "; " : "", xf_stage_name((xf_stage)s), family);
        }
    }
    if (!use || !*use) return 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", use);
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
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
        const xf_variant *v = xf_registry_find((xf_stage)s, eq + 1);
        if (!v) {
            snprintf(err, err_size, "--use: no %s variant named '%s'", item, eq + 1);
            return -1;
        }
        const char *why = xf_variant_unavailable(v);
        if (why) {
            snprintf(err, err_size, "--use: %s variant '%s' is unavailable: %s", item, eq + 1, why);
            return -1;
        }
        ops->op[s] = v;
    }
    return 0;
}
