// bf16 embedding on any AVX2 CPU: the table row widened, scaled and added
// to the fp32 sinusoid table the avx2 family builds in prepare (computed in
// fp64, rounded once), the sum rounded to bf16: half the bytes gathered and
// written of fp32's.
#include <math.h>

#include "../../kernels/half.h"
#include "../simd/kernel_table.h"
#include "bf16.h"
#include "family.h"

int xf_avx2bf16_embed_prepare(const void *args, void **ctx) { return xf_avx2_kernels.embed_prepare(args, ctx); }

void xf_avx2bf16_embed_release(void *ctx) { xf_avx2_kernels.embed_release(ctx); }

// ids is (batch,seq), table is (vocab,d) bf16, y is (batch,seq,d) bf16
void xf_avx2bf16_embed_run(const void *args, void *ctx)
{
    const xf_embed_args *a = args;
    const float *pe_table = xf_avx2_kernels.embed_pe(ctx);
    const int d = a->d_model;
    const __m256 scale = _mm256_set1_ps(sqrtf((float)d));
    for (int r = 0; r < a->batch * a->seq; r++) {
        const xf_bf16 *row = a->table16 + (size_t)a->ids[r] * d;
        const float *pe = pe_table + (size_t)(r % a->seq) * d;
        xf_bf16 *y = a->y16 + (size_t)r * d;
        int c = 0;
        for (; c + 8 <= d; c += 8)
            _mm_storeu_si128((__m128i *)(y + c),
                             xf_bf16x8_round(_mm256_fmadd_ps(xf_bf16x8_load(row + c), scale, _mm256_loadu_ps(pe + c))));
        for (; c < d; c++) y[c] = xf_bf16_from_f32(fmaf(xf_bf16_to_f32(row[c]), sqrtf((float)d), pe[c]));
    }
}
