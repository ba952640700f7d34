// embed: y = E[id] * sqrt(d_model) + PE[pos] (kernels/embed.h).
#include "inputs.h"
#include "stage.h"

// fp32 element, plus the fp64 reference value and bound of an output.

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_embed_args *a = &in->args.embed;
    *a = (xf_embed_args){.batch = c->batch, .seq = c->seq_q, .d_model = d, .vocab = c->vocab};
    a->ids = xf_make_ids(in, r, (size_t)c->batch * c->seq_q, c->vocab);
    a->table = xf_make_table(in, r, c->vocab, d);
    if (!a->ids || !a->table || xf_instance_add_output(in, "y", (size_t)c->batch * c->seq_q * d)) return -1;
    a->y = in->out[0].data;
    if (c->dtype == XF_BF16) { // the same draws rounded: the reference reads the rounded values
        a->dtype = XF_BF16;
        a->table16 = xf_own_bf16(in, (float *)a->table, (size_t)c->vocab * d); // owned by the instance
        a->y16 = in->out[0].data16, a->y = NULL;
        if (!a->table16) return -1;
    }
    in->flops = xf_embed_flops(a), in->bytes = xf_embed_bytes(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    xf_ref_embed(&in->args.embed, ulp, in->ref[0], in->bound[0], NULL);
}

static double bytes_needed(const xf_case *c)
{
    return (c->dtype == XF_BF16 ? XF_F32_BYTES + 2 : XF_F32_BYTES) * (double)c->vocab * xf_case_d_model(c) +
           (double)c->batch * c->seq_q * (XF_F32_BYTES + XF_OUT_BYTES * xf_case_d_model(c));
}

static void describe(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "b=%d s=%d d=%d vocab=%d", c->batch, c->seq_q, xf_case_d_model(c), c->vocab);
}

static void options(const xf_case *c, char *buf, size_t size) { xf_append(buf, size, " --vocab %d", c->vocab); }

// The row-wise grid, with a vocabulary small enough that ids repeat.
static void grid(xf_grid *g, int full)
{
    int first = g->n;
    xf_grid_rows(g, full);
    for (int i = first; i < g->n; i++) g->c[i].vocab = 37;
}

static void case_of(const void *args, xf_case *c)
{
    const xf_embed_args *a = args;
    c->batch = a->batch, c->seq_q = c->seq_k = a->seq, c->dk = a->d_model, c->vocab = a->vocab;
}

const xf_stage_desc xf_stage_embed = {.memory_bound = 1, .build = build, .reference = reference,
                                      .bytes_needed = bytes_needed, .describe = describe, .options = options,
                                      .grid = grid, .case_of = case_of};
