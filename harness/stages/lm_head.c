// lm_head: logits = x E^T with the target embedding table (kernels/lm_head.h).
#include "inputs.h"
#include "stage.h"

// fp32 element, plus the fp64 reference value and bound of an output.

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_lm_head_args *a = &in->args.lm_head;
    *a = (xf_lm_head_args){.rows = c->batch * c->seq_q, .d_model = d, .vocab = c->vocab};
    // x as the final LayerNorm leaves it: unit scale.
    a->x = xf_own_uniform(in, r, (size_t)a->rows * d, -1.5f, 1.5f);
    a->table = xf_make_table(in, r, c->vocab, d);
    if (!a->x || !a->table || xf_instance_add_output(in, "logits", (size_t)a->rows * c->vocab)) return -1;
    a->logits = in->out[0].data;
    if (c->dtype == XF_BF16) { // the same draws rounded: the reference reads the rounded values
        a->dtype = XF_BF16;
        a->x16 = xf_own_bf16(in, (float *)a->x, (size_t)a->rows * d); // owned by the instance
        a->table16 = xf_own_bf16(in, (float *)a->table, (size_t)c->vocab * d);
        a->logits16 = in->out[0].data16, a->logits = NULL;
        if (!a->x16 || !a->table16) return -1;
    }
    in->flops = xf_lm_head_flops(a), in->bytes = xf_lm_head_bytes(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    (void)ulp; // exact arithmetic only
    xf_ref_lm_head(&in->args.lm_head, in->ref[0], in->bound[0]);
}

// x widened to fp64 by the reference too.
static double bytes_needed(const xf_case *c)
{
    double rows = (double)c->batch * c->seq_q, d = xf_case_d_model(c);
    return (c->dtype == XF_BF16 ? XF_F32_BYTES + 2 : XF_F32_BYTES) * (rows * d + (double)c->vocab * d) + 8 * rows * d +
           XF_OUT_BYTES * rows * c->vocab;
}

static void describe(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "rows=%d d=%d vocab=%d", c->batch * c->seq_q, xf_case_d_model(c), c->vocab);
}

static void options(const xf_case *c, char *buf, size_t size) { xf_append(buf, size, " --vocab %d", c->vocab); }

// The row-wise grid (every row count, d_model 8 to 1024) over vocabularies
// of one token, a few, a ragged tail of the 16- and 64-column panels, and
// a thousand.
static void grid(xf_grid *g, int full)
{
    static const int vocabs[] = {1, 7, 37, 130, 1000};
    int first = g->n;
    xf_grid_rows(g, full);
    for (int i = first; i < g->n; i++) g->c[i].vocab = vocabs[(i - first) % 5];
}

static void case_of(const void *args, xf_case *c)
{
    const xf_lm_head_args *a = args;
    c->seq_q = c->seq_k = a->rows, c->dk = a->d_model, c->vocab = a->vocab;
}

const xf_stage_desc xf_stage_lm_head = {.build = build, .reference = reference, .bytes_needed = bytes_needed,
                                        .describe = describe, .options = options, .grid = grid,
                                        .case_of = case_of};
