#include "../../kernels/half.h"
#include "naive.h"

// x is (m,k), w is (n,k), y is (m,n), all bf16: each term widened to fp32
// and summed in index order in fp32, the result rounded to bf16 once. The
// mutants (variants/mutant) call it with a broken rounding or accumulator.
void xf_naive_linear_bf16_with(const xf_linear_args *a, xf_naive_bf16_bug bug)
{
    for (int i = 0; i < a->m; i++)
        for (int j = 0; j < a->n; j++) {
            const xf_bf16 *x = a->x16 + (size_t)i * a->k, *w = a->w16 + (size_t)j * a->k;
            float acc = 0.0f;
            for (int p = 0; p < a->k; p++) {
                acc += xf_bf16_to_f32(x[p]) * xf_bf16_to_f32(w[p]);
                if (bug == XF_BF16_ACCUMULATOR) acc = xf_round_bf16(acc);
            }
            if (a->b16) acc += xf_bf16_to_f32(a->b16[j]);
            if (a->relu && acc < 0.0f) acc = 0.0f;
            a->y16[(size_t)i * a->n + j] = xf_naive_store_bf16(acc, bug);
        }
}

void xf_naive_linear_bf16(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_linear_bf16_with(args, XF_BF16_CORRECT);
}

// x is (rows,d), table is (vocab,d), logits are (rows,vocab), all bf16: the
// bf16 linear with the table as weight, no bias.
void xf_naive_lm_head_bf16(const void *args, void *ctx)
{
    (void)ctx;
    const xf_linear_args l = xf_lm_head_as_linear(args);
    xf_naive_linear_bf16_with(&l, XF_BF16_CORRECT);
}
