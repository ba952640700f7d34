// decode_layer: one decoder layer for one new token per sequence at cache
// depth --depth (kernels/decode.h). The cache holds the K|V projections of
// `depth` random earlier inputs and the memory's K|V those of random memory
// rows, both through the layer's own weights, so the scores look like a real
// model's; the step's reference reads them as given.
#include <math.h>
#include <stdlib.h>

#include "compound.h"
#include "inputs.h"

// Rows a cache holds past the new token: a real cache is allocated for the
// longest sequence, so the batch stride is not the read length.
enum { CACHE_SLACK = 5 };

// kv (rows at stride ld) = K|V projection (rows d..3d of in_proj) of rows
// uniform in [-1, 1), each rounded once to fp32.
static void project_kv(xf_rng *r, const xf_mha_weights *w, int d, int rows, float *kv, size_t ld)
{
    double *x = malloc((size_t)d * sizeof *x);
    for (int i = 0; i < rows; i++) {
        for (int c = 0; c < d; c++) x[c] = xf_rng_uniform(r, -1.0f, 1.0f);
        for (int j = 0; j < 2 * d; j++) {
            const float *wj = w->in_proj_w + (size_t)(d + j) * d;
            double acc = w->in_proj_b[d + j];
            for (int c = 0; c < d; c++) acc += x[c] * wj[c];
            kv[(size_t)i * ld + j] = (float)acc;
        }
    }
    free(x);
}

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_decode_layer_args *a = &in->args.decode_layer;
    xf_decoder_weights *w = xf_instance_own(in, sizeof *w);
    if (!w || xf_make_decoder(in, r, d, c->d_ff, w)) return -1;
    *a = (xf_decode_layer_args){.batch = c->batch, .heads = c->heads, .dk = c->dk, .d_ff = c->d_ff,
                                .seq_s = c->seq_k, .pos = c->depth, .capacity = c->depth + 1 + CACHE_SLACK,
                                .w = w};
    const size_t row = 2 * (size_t)d, cache = (size_t)a->capacity * row;
    float *self_kv = xf_instance_own(in, (size_t)c->batch * cache * sizeof(float));
    float *cross_kv = xf_instance_own(in, (size_t)c->batch * c->seq_k * row * sizeof(float));
    a->x = xf_own_uniform(in, r, (size_t)c->batch * d, -1.0f, 1.0f);
    a->src_pad = xf_make_pad(in, c->batch, c->seq_k, c->pad);
    if (!self_kv || !cross_kv || !a->x || xf_instance_add_output(in, "y", (size_t)c->batch * d)) return -1;
    for (int b = 0; b < c->batch; b++) {
        float *mine = self_kv + b * cache;
        project_kv(r, &w->self_attn, d, a->pos, mine, row);
        // Rows from pos on are not written yet: NaN, so a step that reads
        // its row before appending it fails (a stale row might pass).
        for (size_t i = (size_t)a->pos * row; i < cache; i++) mine[i] = NAN;
        project_kv(r, &w->cross_attn, d, c->seq_k, cross_kv + (size_t)b * c->seq_k * row, row);
    }
    a->self_kv = self_kv, a->cross_kv = cross_kv, a->y = in->out[0].data;
    if (c->dtype == XF_BF16) { // weights already bf16 values (xf_own_uniform); the caches rounded, as a bf16 model's
        a->dtype = XF_BF16, a->y16 = in->out[0].data16;
        a->x16 = xf_own_bf16(in, (float *)a->x, (size_t)c->batch * d);
        a->self_kv16 = xf_own_bf16(in, self_kv, (size_t)c->batch * cache);
        a->cross_kv16 = xf_own_bf16(in, cross_kv, (size_t)c->batch * c->seq_k * row);
        if (!a->x16 || !a->self_kv16 || !a->cross_kv16) return -1;
    }
    in->flops = xf_decode_layer_flops(a), in->bytes = xf_decode_layer_bytes(a);
    in->useful_flops = xf_decode_layer_useful_flops(a);
    in->tokens = c->batch, in->steps = 1;
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    const xf_decode_layer_args *a = &in->args.decode_layer;
    const size_t count = (size_t)a->batch * a->heads * a->dk;
    double *x = xf_widen(a->x, count), *zero = calloc(count, sizeof *zero);
    xf_ref_decode_layer_d(a, x, zero, ulp, in->ref[0], in->bound[0]);
    free(x);
    free(zero);
}

// The weights, the cache and the memory's K|V in fp32; the reference's fp64
// copies of both with their variances; a step's activations.
static double bytes_needed(const xf_case *c)
{
    double d = xf_case_d_model(c), b = c->batch, kv_rows = c->depth + 1.0 + CACHE_SLACK + c->seq_k;
    return XF_F32_BYTES * (xf_encoder_weight_floats(d, c->d_ff) + 4 * d * d + 6 * d) +
           (XF_F32_BYTES + 16) * b * kv_rows * 2 * d + xf_layer_activation_bytes(b, 0, d, c->d_ff) +
           XF_OUT_BYTES * b * d;
}

static void describe(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "b=%d h=%d dk=%d depth=%d sk=%d d_ff=%d pad=%s", c->batch, c->heads, c->dk, c->depth,
              c->seq_k, c->d_ff, xf_pad_name(c->pad));
}

static void options(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, " --depth %d", c->depth);
    xf_compound_options(c, buf, size);
}

static void grid(xf_grid *g, int full) { xf_grid_decode(g, full, 0); }

const xf_stage_desc xf_stage_decode_layer = {.read_roof = 1, .build = build, .reference = reference, .bytes_needed = bytes_needed,
                                             .describe = describe, .options = options, .grid = grid,
                                             .calls = xf_layer_calls};
