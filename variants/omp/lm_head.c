// Threaded lm_head: the omp linear (threads over the rows of x, or over the
// table's panels when x has few rows, as decoding has) with the table as a
// bias-free weight, which is what the tied head is.
#include "omp_family.h"

static xf_linear_args as_linear(const xf_lm_head_args *a)
{
    return (xf_linear_args){.m = a->rows, .n = a->vocab, .k = a->d_model, .x = a->x, .w = a->table,
                            .y = a->logits};
}

// x is (rows,d), table is (vocab,d), logits are (rows,vocab)
void xf_omp_lm_head_run(const void *args, void *ctx)
{
    const xf_linear_args l = as_linear(args);
    xf_omp_linear_run(&l, ctx);
}

int xf_omp_lm_head_prepare(const void *args, void **ctx)
{
    const xf_linear_args l = as_linear(args);
    return xf_omp_linear_prepare(&l, ctx);
}
