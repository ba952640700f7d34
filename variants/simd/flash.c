// Fused attention (FlashAttention's online softmax, Dao et al. 2022) per
// batch and head: for a block of BR query rows, walk the keys in tiles of
// BC; S = Q K^T for the tile (the GEMM micro-kernel, K packed per head),
// scale and mask it, update each row's running max m and sum l, rescale the
// row's output accumulator by exp(m_old - m_new), and add P V for the tile
// (the micro-kernel again, V packed per head). The seq_q x seq_k matrix is
// never formed: S (which becomes P in place) and O of one query block
// (about 45 KiB) live in L2.
// Key tiles the mask hides from the whole query block are skipped: past the
// diagonal under the causal mask, or all padding.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simd.h"

// BC is the row stride of the score tile, which the P V micro-kernel
// reads unpacked.
enum { BR = XF_GEMM_MR * (64 / XF_GEMM_MR), BC = XF_UK_ROWS_LDA };
enum { BR_PAD = (BR + XF_GEMM_MR - 1) / XF_GEMM_MR * XF_GEMM_MR };

// The workspace of one query block (one per thread): Q packed, the score
// tile, the output accumulator, running max and sum.
typedef struct {
    float *qa, *s, *o, *m, *l;
    int dkp; // dk rounded up to whole NR panels: the row stride of o
} flash_ws;

void XF_FN(flash_ws_free)(void *ws)
{
    flash_ws *w = ws;
    if (!w) return;
    free(w->qa), free(w->s), free(w->o), free(w->m), free(w->l);
    free(w);
}

void *XF_FN(flash_ws_new)(int dk)
{
    flash_ws *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->dkp = (dk + XF_GEMM_NR - 1) / XF_GEMM_NR * XF_GEMM_NR;
    w->qa = malloc((size_t)BR_PAD * dk * sizeof(float));
    w->s = malloc((size_t)BR_PAD * BC * sizeof(float));
    w->o = malloc((size_t)BR_PAD * w->dkp * sizeof(float));
    w->m = malloc(BR * sizeof(float));
    w->l = malloc(BR * sizeof(float));
    if (!w->qa || !w->s || !w->o || !w->m || !w->l) {
        XF_FN(flash_ws_free)(w);
        return NULL;
    }
    return w;
}

int XF_FN(flash_br)(void) { return BR; }
int XF_FN(flash_tiles)(int seq_k) { return (seq_k + BC - 1) / BC; }
size_t XF_FN(flash_kv_floats)(int seq_k, int dk)
{
    return XF_FN(packed_b_floats)(seq_k, dk) + XF_FN(packed_b_floats)(dk, seq_k);
}

// K of head (b,h) packed as B^T, then V packed, into kv.
void XF_FN(flash_pack_head)(const xf_attention_args *a, int b, int h, float *kv)
{
    const xf_attention_head x = xf_attention_head_at(a, b, h);
    XF_FN(pack_b_nk)(x.k, a->ldk, a->seq_k, a->dk, kv);
    XF_FN(pack_b_kn)(x.v, a->ldv, a->seq_k, a->dk, kv + XF_FN(packed_b_floats)(a->seq_k, a->dk));
}

// visible[t] = 0 if key tile t of batch b is all padding.
void XF_FN(flash_visible_tiles)(const xf_attention_args *a, int b, uint8_t *visible)
{
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    for (int t = 0; t < XF_FN(flash_tiles)(a->seq_k); t++) {
        visible[t] = 0;
        for (int j = t * BC; j < (t + 1) * BC && j < a->seq_k && !visible[t]; j++) visible[t] = !pad || !pad[j];
    }
}

// One row of a score tile: scale, mask (keys from n_vis on are causal-
// masked), exp against the updated running max; returns the factor the
// row's earlier output must be rescaled by. p receives the probabilities
// (unnormalised), 0 where masked.
static float online_row(float *t, int bc, int n_vis, const uint8_t *pad, float scale, float *m,
                        float *l)
{
    const float mt = XF_FN(scale_mask_max)(t, t, n_vis, scale, pad);
    for (int j = n_vis; j < bc; j++) t[j] = -INFINITY;
    if (mt == -INFINITY) { // nothing visible in this tile for this row
        memset(t, 0, (size_t)bc * sizeof *t);
        return 1.0f;
    }
    const float m_new = mt > *m ? mt : *m;
    const float alpha = *m == -INFINITY ? 0.0f : expf(*m - m_new);
    *l = *l * alpha + XF_FN(exp_sum)(t, bc, m_new);
    *m = m_new;
    return alpha;
}

static void scale_row(float *o, int n, float f)
{
    const xv fv = xv_set1(f);
    for (int j = 0; j < n; j += XV_W) xv_store(o + j, xv_mul(xv_load(o + j), fv));
}

// Query rows i0..i0+BR (or to seq_q) of head (b,h) against every key tile
// (kv, visible: from flash_pack_head and flash_visible_tiles), in ws.
void XF_FN(flash_block)(const xf_attention_args *a, const float *kv, const uint8_t *visible,
                        void *ws, int b, int h, int i0)
{
    flash_ws *c = ws;
    const xf_attention_head x = xf_attention_head_at(a, b, h);
    const float *q = x.q + (size_t)i0 * a->ldq;
    float *out = x.out + (size_t)i0 * a->ldo;
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    const float *kp = kv, *vp = kv + XF_FN(packed_b_floats)(a->seq_k, a->dk);
    const int br = a->seq_q - i0 < BR ? a->seq_q - i0 : BR;
    const int dk = a->dk, sk = a->seq_k, dkp = c->dkp, qpanels = (br + XF_GEMM_MR - 1) / XF_GEMM_MR;
    const float scale = 1.0f / sqrtf((float)dk);
    XF_FN(pack_a)(q, a->ldq, br, dk, c->qa);
    memset(c->o, 0, (size_t)BR_PAD * dkp * sizeof(float));
    // Rows past br of the last panel are computed and never used; zeros
    // keep them finite.
    memset(c->s + (size_t)br * BC, 0, (size_t)(BR_PAD - br) * BC * sizeof(float));
    for (int i = 0; i < br; i++) c->m[i] = -INFINITY, c->l[i] = 0.0f;
    for (int j0 = 0; j0 < sk; j0 += BC) {
        if (a->causal && j0 > i0 + br - 1) break; // this tile and all later ones are masked
        if (!visible[j0 / BC]) continue;
        const int bc = sk - j0 < BC ? sk - j0 : BC;
        // S (br x bc, row stride BC) = Q_block K_tile^T
        for (int p = 0; p * XF_GEMM_NR < bc; p++) {
            const float *kpanel = kp + (size_t)(j0 / XF_GEMM_NR + p) * dk * XF_GEMM_NR;
            for (int r = 0; r < qpanels; r++)
                XF_FN(gemm_ukernel)(dk, c->qa + (size_t)r * dk * XF_GEMM_MR, kpanel,
                                    c->s + (size_t)r * XF_GEMM_MR * BC + p * XF_GEMM_NR, BC, 1, NULL, 0);
        }
        for (int i = 0; i < br; i++) {
            int n_vis = a->causal ? i0 + i - j0 + 1 : bc;
            if (n_vis > bc) n_vis = bc;
            if (n_vis < 0) n_vis = 0;
            float alpha = online_row(c->s + (size_t)i * BC, bc, n_vis, pad ? pad + j0 : NULL, scale,
                                     &c->m[i], &c->l[i]);
            if (alpha != 1.0f) scale_row(c->o + (size_t)i * dkp, dkp, alpha);
        }
        // O += P V_tile, P read in place as rows of the score tile
        for (int p = 0; p * XF_GEMM_NR < dk; p++) {
            const float *vpanel = vp + ((size_t)p * sk + j0) * XF_GEMM_NR;
            for (int r = 0; r < qpanels; r++)
                XF_FN(gemm_ukernel_rows)(bc, c->s + (size_t)r * XF_GEMM_MR * BC, vpanel,
                                         c->o + (size_t)r * XF_GEMM_MR * dkp + p * XF_GEMM_NR, dkp, 0, NULL, 0);
        }
    }
    for (int i = 0; i < br; i++) { // normalise; a row that saw no key stays 0
        const float inv = c->l[i] > 0.0f ? 1.0f / c->l[i] : 0.0f;
        float *o = c->o + (size_t)i * dkp, *dst = out + (size_t)i * a->ldo;
        for (int d = 0; d < dk; d++) dst[d] = o[d] * inv;
    }
}

// One thread's flash attention: a workspace, one head's packed K and V,
// the visible tiles of one batch.
typedef struct {
    void *ws;
    float *kv;
    uint8_t *visible;
    float *row_s, *row_o, *row_ml; // few query rows: scores (heads,seq_k), outputs (heads,dk), max and sum (2 heads)
} flash_ctx;

void XF_FN(flash_release)(void *ctx)
{
    flash_ctx *c = ctx;
    if (!c) return;
    XF_FN(flash_ws_free)(c->ws), free(c->kv), free(c->visible), free(c->row_s), free(c->row_o), free(c->row_ml);
    free(c);
}

int XF_FN(flash_prepare)(const void *args, void **ctx)
{
    const xf_attention_args *a = args;
    flash_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    if (a->seq_q <= XF_FEW_ROWS) { // decode.c's rows: nothing packed
        c->row_s = malloc((size_t)a->heads * a->seq_k * sizeof(float) + 64);
        c->row_o = malloc((size_t)a->heads * a->dk * sizeof(float) + 64);
        c->row_ml = malloc(2 * (size_t)a->heads * sizeof(float));
        if (!c->row_s || !c->row_o || !c->row_ml) {
            XF_FN(flash_release)(c);
            return -1;
        }
        *ctx = c;
        return 0;
    }
    c->ws = XF_FN(flash_ws_new)(a->dk);
    c->kv = malloc(XF_FN(flash_kv_floats)(a->seq_k, a->dk) * sizeof(float));
    c->visible = malloc((size_t)XF_FN(flash_tiles)(a->seq_k) + 1);
    if (!c->ws || !c->kv || !c->visible) {
        XF_FN(flash_release)(c);
        return -1;
    }
    *ctx = c;
    return 0;
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk)
void XF_FN(flash_run)(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    flash_ctx *c = ctx;
    if (c->row_s) {
        float *m = c->row_ml, *l = c->row_ml + a->heads;
        for (int b = 0; b < a->batch; b++)
            for (int i = 0; i < a->seq_q; i++) {
                XF_FN(attend_heads)(a, b, i, 0, a->seq_k, c->row_s, c->row_o, m, l);
                XF_FN(attend_finish)(a, b, i, c->row_o, l);
            }
        return;
    }
    for (int b = 0; b < a->batch; b++) {
        XF_FN(flash_visible_tiles)(a, b, c->visible);
        for (int h = 0; h < a->heads; h++) {
            XF_FN(flash_pack_head)(a, b, h, c->kv);
            for (int i0 = 0; i0 < a->seq_q; i0 += BR) XF_FN(flash_block)(a, c->kv, c->visible, c->ws, b, h, i0);
        }
    }
}
