#include <math.h>

#include "../../kernels/half.h"
#include "naive.h"

// x, r, y are (rows,d), gamma and beta (d), all bf16: the fp32 two-pass
// LayerNorm of naive/add_layernorm.c on the widened values (v = x + r is
// recomputed in each pass, the same fp32 sum every time), the result
// rounded to bf16 once. The mutants (variants/mutant) call it with the
// rounding broken.
void xf_naive_add_layernorm_bf16_with(const xf_add_layernorm_args *a, xf_naive_bf16_bug bug)
{
    for (int i = 0; i < a->rows; i++) {
        const xf_bf16 *x = a->x16 + (size_t)i * a->d, *r = a->r16 + (size_t)i * a->d;
        xf_bf16 *y = a->y16 + (size_t)i * a->d;
        float mean = 0.0f, var = 0.0f;
        for (int c = 0; c < a->d; c++) mean += xf_bf16_to_f32(x[c]) + xf_bf16_to_f32(r[c]);
        mean /= (float)a->d;
        for (int c = 0; c < a->d; c++) {
            const float cen = xf_bf16_to_f32(x[c]) + xf_bf16_to_f32(r[c]) - mean;
            var += cen * cen;
        }
        var /= (float)a->d;
        const float rstd = 1.0f / sqrtf(var + XF_LN_EPS);
        for (int c = 0; c < a->d; c++)
            y[c] = xf_naive_store_bf16((xf_bf16_to_f32(x[c]) + xf_bf16_to_f32(r[c]) - mean) * rstd *
                                               xf_bf16_to_f32(a->gamma16[c]) +
                                           xf_bf16_to_f32(a->beta16[c]),
                                       bug);
    }
}

void xf_naive_add_layernorm_bf16(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_add_layernorm_bf16_with(args, XF_BF16_CORRECT);
}
