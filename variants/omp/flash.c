// Threaded fused attention: first every (batch, head)'s K and V are packed
// (threads over heads), then the (batch, head, query block) work items are
// handed out dynamically, each a flash_block of the SIMD family in the
// thread's own workspace. Dynamic, because causal query blocks grow in cost
// along the sequence and padded key tiles are skipped.
#include <stdlib.h>

#include "omp_family.h"
#include "../isa/huge.h"

typedef struct {
    void *decode;      // few query rows: decode_attention.c's context, nothing else
    const xf_simd_kernels *k;
    float *kv;         // per (b,h): flash_kv_floats
    uint16_t *visible; // per b: flash_tiles
    void **ws;         // per thread
    size_t kv_floats;
    int tiles, threads;
} flash_ctx;

void xf_omp_flash_release(void *ctx)
{
    flash_ctx *c = ctx;
    if (!c) return;
    xf_omp_decode_attention_release(c->decode);
    if (c->ws)
        for (int t = 0; t < c->threads; t++) c->k->flash_ws_free(c->ws[t]);
    free(c->ws), free(c->kv), free(c->visible);
    free(c);
}

int xf_omp_flash_prepare(const void *args, void **ctx)
{
    const xf_attention_args *a = args;
    flash_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    if (a->seq_q <= XF_FEW_ROWS) {
        if (xf_omp_decode_attention_prepare(args, &c->decode) != 0) return free(c), -1;
        *ctx = c;
        return 0;
    }
    c->k = xf_simd_widest_kernels();
    c->threads = xf_team_threads();
    c->kv_floats = c->k->flash_kv_floats(a->seq_k, a->dk);
    c->tiles = c->k->flash_tiles(a->seq_k);
    c->kv = xf_alloc_lines(c->kv_floats * sizeof(float) * (size_t)a->batch * a->heads + 64);
    c->visible = malloc(((size_t)c->tiles * a->batch + 1) * sizeof *c->visible);
    c->ws = calloc((size_t)c->threads, sizeof *c->ws);
    int ok = c->kv && c->visible && c->ws;
    for (int t = 0; ok && t < c->threads; t++) ok = (c->ws[t] = c->k->flash_ws_new(a->dk)) != NULL;
    if (!ok) {
        xf_omp_flash_release(c);
        return -1;
    }
    *ctx = c;
    return 0;
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk)
void xf_omp_flash_run(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    const flash_ctx *c = ctx;
    if (c->decode) {
        xf_omp_decode_attention_run(args, c->decode);
        return;
    }
    const int br = c->k->flash_br(), blocks = (a->seq_q + br - 1) / br;
#pragma omp parallel num_threads(c->threads)
    {
#pragma omp for collapse(2) schedule(static)
        for (int b = 0; b < a->batch; b++)
            for (int h = 0; h < a->heads; h++)
                c->k->flash_pack_head(a, b, h, c->kv + ((size_t)b * a->heads + h) * c->kv_floats);
#pragma omp for schedule(static)
        for (int b = 0; b < a->batch; b++) c->k->flash_visible_tiles(a, b, c->visible + (size_t)b * c->tiles);
        // (the implicit barriers after each loop publish kv and visible)
#pragma omp for collapse(3) schedule(dynamic)
        for (int b = 0; b < a->batch; b++)
            for (int h = 0; h < a->heads; h++)
                for (int qb = 0; qb < blocks; qb++)
                    c->k->flash_block(a, c->kv + ((size_t)b * a->heads + h) * c->kv_floats,
                                      c->visible + (size_t)b * c->tiles, c->ws[xf_team_thread()], b, h,
                                      qb * br);
    }
}
