// bf16 embedding with fp32 arithmetic (bf16fma.h): the table row widened,
// scaled and added to the fp32 sinusoid table the fp32 family builds in
// prepare (computed in fp64, rounded once), the sum rounded to bf16: half
// the bytes gathered and written of fp32's.
#include <math.h>

#include "bf16fma.h"

int XF_BF_FN(embed_prepare)(const void *args, void **ctx) { return XF_FN(kernels).embed_prepare(args, ctx); }

void XF_BF_FN(embed_release)(void *ctx) { XF_FN(kernels).embed_release(ctx); }

// ids is (batch,seq), table is (vocab,d) bf16, y is (batch,seq,d) bf16
void XF_BF_FN(embed_run)(const void *args, void *ctx)
{
    const xf_embed_args *a = args;
    const float *pe_table = XF_FN(kernels).embed_pe(ctx);
    const int d = a->d_model;
    const xv scale = xv_set1(sqrtf((float)d));
    for (int r = 0; r < a->batch * a->seq; r++) {
        const xf_bf16 *row = a->table16 + (size_t)a->ids[r] * d;
        const float *pe = pe_table + (size_t)(r % a->seq) * d;
        xf_bf16 *y = a->y16 + (size_t)r * d;
        int c = 0;
        for (; c + XV_W <= d; c += XV_W) xv_store_bf16(y + c, xv_fma(xv_load_bf16(row + c), scale, xv_load(pe + c)));
        for (; c < d; c++) y[c] = xf_bf16_from_f32(fmaf(xf_bf16_to_f32(row[c]), sqrtf((float)d), pe[c]));
    }
}
