// The comparison of a model file's run with the outputs PyTorch stored in
// the file (torch.memory, torch.output): rows PyTorch and xfbench define
// differently are left out and counted, the rest held to the error model.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/decode.h"
#include "../kernels/half.h"
#include "torch_compare.h"

// A query row with no visible key: PyTorch gives NaN there, xfbench zeros
// (docs/design.md, Masking), so such rows are left out of the comparison and counted.
static int row_fully_masked(const xf_forward_args *a, int is_memory, int b, int row)
{
    int src_all = 1;
    for (int j = 0; j < a->seq_s && src_all; j++) src_all = a->src_pad && a->src_pad[(size_t)b * a->seq_s + j];
    if (src_all) return 1; // encoder rows and cross-attention rows of this batch element
    if (is_memory) return 0;
    for (int j = 0; j <= row && j < a->seq_t; j++)
        if (!a->tgt_pad || !a->tgt_pad[(size_t)b * a->seq_t + j]) return 0;
    return 1;
}

// A row at a padded position: zero by xfbench's contract (docs/design.md,
// Masking), whatever PyTorch leaves there (its fast path zeros, its
// general path a value no one reads), so not compared.
static int row_padded(const xf_forward_args *a, int is_memory, int b, int row)
{
    const uint8_t *pad = is_memory ? a->src_pad : a->tgt_pad;
    int seq = is_memory ? a->seq_s : a->seq_t;
    return pad && pad[(size_t)b * seq + row];
}

// |x - torch| <= 2 * bound: the bound (8 sigma of the error model) holds
// for xfbench's fp32 result against the fp64 reference, and PyTorch's fp32
// result is assumed to meet the same model (its exp, rsqrt and GEMMs round
// like ours: within a few ulps), so the two fp32 results may be apart by
// twice the bound. The fp64 reference is held to one bound.
static int compare_one(const xf_forward_args *a, int is_memory, const char *what, const float *x32,
                       const double *x64, const float *torch, const double *bound, size_t count,
                       double factor, FILE *out)
{
    double max_abs = 0, max_rel = 0, se = 0, sr = 0, worst = 0;
    long excluded = 0, padded = 0, bad = 0;
    int d = a->heads * a->dk, seq = is_memory ? a->seq_s : a->seq_t;
    for (size_t i = 0; i < count; i++) {
        double v = x32 ? x32[i] : x64[i], t = torch[i];
        int b = (int)(i / ((size_t)seq * d)), row = (int)(i / d % seq);
        if (row_padded(a, is_memory, b, row)) {
            padded += i % d == 0;
            continue;
        }
        if (isnan(t) && row_fully_masked(a, is_memory, b, row)) {
            excluded++;
            continue;
        }
        double e = fabs(v - t);
        if (!(e <= factor * bound[i])) bad++;
        if (isnan(e)) e = INFINITY;
        if (e > max_abs) max_abs = e;
        if (t != 0 && e / fabs(t) > max_rel) max_rel = e / fabs(t);
        if (e / (factor * bound[i]) > worst) worst = e / (factor * bound[i]);
        se += e * e, sr += t * t;
    }
    fprintf(out, "%s %-28s max_abs=%.3g max_rel=%.3g nmse=%.3g err/bound=%.3g [%gx model 8 sigma]",
            bad ? "FAIL" : "PASS", what, max_abs, max_rel, sr > 0 ? se / sr : se, worst, factor);
    if (padded) fprintf(out, " (%ld padded rows left out: zero by contract)", padded);
    if (excluded) fprintf(out, " (%ld elements of fully masked rows left out: PyTorch gives NaN)", excluded);
    if (bad) fprintf(out, " %ld elements out of bound", bad);
    fputc('\n', out);
    return bad ? 1 : 0;
}

// The full pass's view of a forward or generate instance: what the
// comparison with PyTorch reads (lengths, pads).
static xf_forward_args pass_of(const xf_instance *in)
{
    if (in->c.stage != XF_GENERATE) return in->args.forward;
    return xf_forward_of_generate(&in->args.generate);
}

int xf_compare_with_torch(const xf_st *st, const xf_instance *in, const char *variant, FILE *out)
{
    const xf_forward_args pass = pass_of(in), *a = &pass;
    const char *names[2] = {"torch.memory", "torch.output"};
    int failed = 0, any = 0;
    for (int o = 0; o < 2; o++) {
        const xf_st_tensor *t = xf_st_find(st, names[o]);
        if (!t) continue;
        size_t count = in->out[o].count;
        int seq = o == 0 ? a->seq_s : a->seq_t;
        if (strcmp(t->dtype, "F32") || t->ndim != 3 || t->shape[0] != a->batch || t->shape[1] != seq ||
            t->shape[2] != a->heads * a->dk) {
            fprintf(out, "FAIL %s is not F32 of shape [%d, %d, %d]\n", names[o], a->batch, seq, a->heads * a->dk);
            failed++;
            continue;
        }
        if (!any++) {
            const char *v = xf_st_meta(st, "torch_version");
            fprintf(out, "against PyTorch %s (outputs stored in the file):\n", v ? v : "(version not recorded)");
        }
        float *torch = malloc(count * sizeof *torch), *ours = in->out[o].data;
        memcpy(torch, t->data, count * sizeof *torch);
        if (in->out[o].data16) { // a bf16 run's outputs, widened
            ours = malloc(count * sizeof *ours);
            if (!ours) {
                fprintf(out, "FAIL %s: out of memory comparing with PyTorch\n", in->out_name[o]);
                free(torch);
                failed++;
                continue;
            }
            for (size_t i = 0; i < count; i++) ours[i] = xf_bf16_to_f32(in->out[o].data16[i]);
        }
        char what[96];
        snprintf(what, sizeof what, "%s %s vs torch", in->out_name[o], variant);
        failed += compare_one(a, o == 0, what, ours, NULL, torch, in->bound[o], count, 2.0, out);
        if (ours != in->out[o].data) free(ours);
        snprintf(what, sizeof what, "%s fp64 reference vs torch", in->out_name[o]);
        failed += compare_one(a, o == 0, what, NULL, in->ref[o], torch, in->bound[o], count, 1.0, out);
        free(torch);
    }
    return failed;
}
