// An instance of a case: what its stage's descriptor builds (inputs,
// weights, guarded outputs), the reference it is checked with, and the
// memory it owns.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/errmodel.h"
#include "../variants/isa/huge.h"
#include "case.h"
#include "stages/stage.h"

static const char *const pad_names[XF_NPADS] = {"none", "some", "all-but-one", "all"};

const char *xf_pad_name(xf_pad p) { return pad_names[p]; }

int xf_pad_from_name(const char *name)
{
    for (int p = 0; p < XF_NPADS; p++)
        if (strcmp(name, pad_names[p]) == 0) return p;
    return -1;
}

void *xf_instance_own(xf_instance *in, size_t bytes)
{
    // aligned_alloc wants a whole number of alignments, and at least one.
    // From 2 MiB on in huge pages, for every variant alike: what a call
    // streams from DRAM then measures the kernel, not 4 KiB page walks
    // (variants/isa/huge.h).
    size_t size = bytes ? (bytes + 63) / 64 * 64 : 64;
    void *p = xf_alloc_huge(size);
    if (!p) return NULL;
    in->owned = realloc(in->owned, (size_t)(in->nowned + 1) * sizeof *in->owned);
    in->owned[in->nowned++] = p;
    return p;
}

int xf_instance_add_output(xf_instance *in, const char *name, size_t count)
{
    int i = in->nout++;
    in->out_name[i] = name;
    if ((in->c.dtype == XF_BF16 ? xf_guarded_alloc_bf16 : xf_guarded_alloc)(&in->out[i], count) != 0) return -1;
    in->ref[i] = malloc(count * sizeof(double));
    in->bound[i] = malloc(count * sizeof(double));
    return in->ref[i] && in->bound[i] ? 0 : -1;
}

int xf_instance_build(xf_instance *in, const xf_case *c)
{
    memset(in, 0, sizeof *in);
    in->c = *c;
    in->bound_ulp = -1.0;
    in->useful_flops = -1.0; // set by the stages with masked work
    in->model_bound = c->stage >= XF_FIRST_COMPOUND;
    xf_rng r = {c->seed};
    int rc = xf_stage_desc_of(c->stage)->build(in, &r);
    if (in->useful_flops < 0) in->useful_flops = in->flops;
    return rc;
}

xf_case xf_case_of_stage(const xf_case *shape, xf_stage s)
{
    xf_case c = *shape;
    c.stage = s;
    const int vocab = xf_stage_desc_of(s)->default_vocab;
    if (!c.vocab) c.vocab = vocab ? vocab : 1000;
    return c;
}

double xf_case_bytes(const xf_case *c) { return xf_stage_desc_of(c->stage)->bytes_needed(c); }

// Compound stages: the reference's error-model variance becomes the bound
// XF_MODEL_SIGMAS * sigma (errmodel.h). The floor covers elements whose
// modelled variance is 0 (a sum that is exactly representable).
static void var_to_bound(double *b, size_t count)
{
    for (size_t i = 0; i < count; i++) b[i] = XF_MODEL_SIGMAS * sqrt(b[i]) + 0x1p-126;
}

void xf_instance_reference(xf_instance *in, double ulp, int p_bf16)
{
    if (in->bound_ulp == ulp && in->bound_p_bf16 == p_bf16) return;
    in->bound_ulp = ulp, in->bound_p_bf16 = p_bf16;
    xf_stage_desc_of(in->c.stage)->reference(in, ulp);
    if (in->model_bound)
        for (int o = 0; o < in->nout; o++) var_to_bound(in->bound[o], in->out[o].count);
}

void xf_instance_free(xf_instance *in)
{
    for (int o = 0; o < in->nout; o++) {
        xf_guarded_free(&in->out[o]);
        free(in->ref[o]);
        free(in->bound[o]);
    }
    for (int i = 0; i < in->nowned; i++) free(in->owned[i]);
    free(in->owned);
    memset(in, 0, sizeof *in);
}
