// Embedding: the sinusoidal table is computed once, in prepare, in fp64 and
// rounded once (as PyTorch users register it as a buffer); run is a gather,
// a multiply-add and a store, bound by memory.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "simd.h"
#include "../isa/huge.h"

typedef struct {
    int seq, d;
    float *pe; // pe is (seq,d): positions pos0..pos0+seq-1
} embed_ctx;

int XF_FN(embed_prepare)(const void *args, void **ctx)
{
    const xf_embed_args *a = args;
    embed_ctx *e = malloc(sizeof *e);
    float *pe = xf_alloc_lines((size_t)a->seq * a->d_model * sizeof(float));
    if (!e || !pe) return free(e), free(pe), -1;
    for (int s = 0; s < a->seq; s++)
        for (int c = 0; c < a->d_model; c++) {
            double angle = xf_pe_angle(a->pos0 + s, c, a->d_model);
            pe[(size_t)s * a->d_model + c] = (float)(c % 2 == 0 ? sin(angle) : cos(angle));
        }
    *e = (embed_ctx){a->seq, a->d_model, pe};
    *ctx = e;
    return 0;
}

// Tokens r0..r1 of the batch*seq; pe_table is (seq,d). stream: write y by
// streaming stores (the caller decides from the whole output's size).
void XF_FN(embed_rows)(const xf_embed_args *a, const float *pe_table, int r0, int r1, int stream)
{
    const int d = a->d_model, tail = d % XV_W, body = d - tail;
    const xv scale = xv_set1(sqrtf((float)d));
    for (int r = r0; r < r1; r++) {
        const int s = r % a->seq;
        const float *row = a->table + (size_t)a->ids[r] * d;
        const float *pe = pe_table + (size_t)s * d;
        float *y = a->y + (size_t)r * d;
        if (stream && ((uintptr_t)y & 63) == 0)
            for (int c = 0; c < body; c += XV_W) xv_stream(y + c, xv_fma(xv_load(row + c), scale, xv_load(pe + c)));
        else
            for (int c = 0; c < body; c += XV_W) xv_store(y + c, xv_fma(xv_load(row + c), scale, xv_load(pe + c)));
        if (tail)
            xv_store_tail(y + body, xv_fma(xv_load_tail(row + body, tail, 0.0f), scale,
                                           xv_load_tail(pe + body, tail, 0.0f)), tail);
    }
    _mm_sfence(); // streaming stores are weakly ordered: publish them
}

// ids is (batch,seq), table is (vocab,d), y is (batch,seq,d)
void XF_FN(embed_run)(const void *args, void *ctx)
{
    const xf_embed_args *a = args;
    const embed_ctx *e = ctx;
    const size_t bytes = 2 * (size_t)a->batch * a->seq * a->d_model * sizeof(float); // rows read, y written
    XF_FN(embed_rows)(a, e->pe, 0, a->batch * a->seq, xf_stream_output(bytes));
}

const float *XF_FN(embed_pe)(const void *ctx) { return ((const embed_ctx *)ctx)->pe; }

void XF_FN(embed_release)(void *ctx)
{
    embed_ctx *e = ctx;
    if (e) free(e->pe);
    free(e);
}
