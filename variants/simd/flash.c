// Fused attention (FlashAttention's online softmax, Dao et al. 2022) per
// batch and head: a block of BR query rows walks the keys in tiles of BC,
// and for each tile, panel by panel of MR query rows: S = Q K^T for the
// panel (the GEMM micro-kernel, Q read in place, K packed per head), the
// panel's online softmax (each row's running max m and sum l; its output
// rescaled by exp(m_old - m_new)), and O += P V (the micro-kernel again,
// P read in place, V packed per head). The seq_q x seq_k matrix is never
// formed. The panel's S (MR x BC, 3 KiB) stays in L1 from its GEMM through
// the softmax to P V; the tile's K and V come from L2 once per panel; O of
// the block (BR x dk) stays in L2.
// Measured on Zen 3 against the previous order (S of the whole block,
// 33 KiB, then softmax of every row, then P V: S went through L2 three
// times; Q packed per block): see docs/performance.md, attention.
// Key tiles the mask hides from the whole query block are skipped: past the
// diagonal under the causal mask, or all padding; under the causal mask a
// panel also stops at its last row's diagonal.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simd.h"
#include "../isa/huge.h"

// BC is the row stride of the score tile, which the P V micro-kernel
// reads unpacked.
enum { BR = XF_GEMM_MR * (64 / XF_GEMM_MR), BC = XF_UK_ROWS_LDA };
enum { BR_PAD = (BR + XF_GEMM_MR - 1) / XF_GEMM_MR * XF_GEMM_MR };
_Static_assert(BC <= UINT16_MAX, "a tile's visible keys fit flash_visible_tiles' uint16_t");
_Static_assert((int)XF_GEMM_MR <= (int)XV_W, "a panel's rescaling factors are one vector's exp");

// The workspace of one query block (one per thread): one panel's score
// tile, the block's output accumulator, running max and sum.
typedef struct {
    float *s, *o, *m, *l;
    int dkp; // dk rounded up to whole NR panels: the row stride of o
} flash_ws;

void XF_FN(flash_ws_free)(void *ws)
{
    flash_ws *w = ws;
    if (!w) return;
    free(w->s), free(w->o), free(w->m), free(w->l);
    free(w);
}

void *XF_FN(flash_ws_new)(int dk)
{
    flash_ws *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->dkp = (dk + XF_GEMM_NR - 1) / XF_GEMM_NR * XF_GEMM_NR;
    // Zeros: rows of a ragged last panel that no query fills are still
    // read by the P V micro-kernel (into output rows never used), and
    // must hold numbers, not whatever the allocator left.
    w->s = xf_alloc_lines_zero((size_t)XF_GEMM_MR * BC * sizeof(float));
    w->o = xf_alloc_lines((size_t)BR_PAD * w->dkp * sizeof(float));
    w->m = malloc(BR * sizeof(float));
    w->l = xf_alloc_lines(BR * XV_W * sizeof(float));
    if (!w->s || !w->o || !w->m || !w->l) {
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

// visible[t]: key tile t of batch b's keys up to its last visible one, 0
// if it is all padding. Keys past that add nothing, so the tile ends there
// (a sequence padded at its end fills only part of its last tile, whose
// padded keys a tile of 256 would otherwise compute).
void XF_FN(flash_visible_tiles)(const xf_attention_args *a, int b, uint16_t *visible)
{
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    for (int t = 0; t < XF_FN(flash_tiles)(a->seq_k); t++) {
        int keys = a->seq_k - t * BC < BC ? a->seq_k - t * BC : BC;
        while (pad && keys > 0 && pad[t * BC + keys - 1]) keys--;
        visible[t] = (uint16_t)keys;
    }
}

// Masks row t's padded keys among t[0..n_vis) (pad: the tile's padding
// bytes, or NULL) to -inf and returns the max of the raw scores, -inf if
// none is visible.
static float row_max(float *t, int n_vis, const uint8_t *pad)
{
    xv vmax = xv_set1(-INFINITY);
    int j = 0;
    for (; j + XV_W <= n_vis; j += XV_W) {
        xv v = xv_load(t + j);
        if (pad) xv_store(t + j, v = xv_pad_to_neg_inf(v, pad + j));
        vmax = xv_max(vmax, v);
    }
    if (pad) // the last n_vis % XV_W keys one by one: a vector would read pad past the row
        for (int jj = j; jj < n_vis; jj++)
            if (pad[jj]) t[jj] = -INFINITY;
    if (j < n_vis) vmax = xv_max(vmax, xv_load_tail(t + j, n_vis - j, -INFINITY));
    return xv_hmax(vmax);
}

// t[0..kc) = 2^(c t - m) for keys below n_vis (-inf, masked, gives 0),
// 0 from n_vis on; returns the sum by lanes. c is 1/sqrt(dk) log2 e, so
// this is exp(t / sqrt(dk) - m ln2): one FMA and the base-2 exp, where the
// natural exp needs a multiply by log2 e and a two-part reduction more
// (each vec.h's xv_exp2 says what it costs; this pass competes with the
// micro-kernels for the FMA pipes). Its rounding errors,
// c's (relative u on c t), the max's in base 2 (u |m|) and the FMA's (u
// |c t - m|), are the u (|t_j| + |max| + |arg|) the reference already
// grants each exp argument (xf_softmax_arg_error).
static xv row_exp_sum(float *t, int kc, int n_vis, float c, float m)
{
    const xv s = xv_set1(c), neg_m = xv_set1(-m);
    xv vsum = xv_zero();
    int j = 0;
    for (; j + XV_W <= n_vis; j += XV_W) {
        const xv e = xv_exp2(xv_fma(xv_load(t + j), s, neg_m));
        xv_store(t + j, e);
        vsum = xv_add(vsum, e);
    }
    if (j < n_vis) { // lanes past n_vis read as -inf, stored as 0 (a row is BC >= j + XV_W long)
        const xv e = xv_exp2(xv_fma(xv_load_tail(t + j, n_vis - j, -INFINITY), s, neg_m));
        xv_store(t + j, e);
        vsum = xv_add(vsum, e);
        j += XV_W;
    }
    if (j < kc) memset(t + j, 0, (size_t)(kc - j) * sizeof *t);
    return vsum;
}

// The online softmax of a panel's score tile s (rows x kc, row stride BC,
// raw scores q.k; row i sees keys below n_vis[i]): leaves in s the
// unnormalised probabilities 2^(c s - m_new), updates each row's running
// max m (of scores times c = log2 e / sqrt(dk): base-2 exponents, which
// the final division by l cancels) and sum l (XV_W partial sums a row,
// added up once at the end instead of a horizontal sum a tile), and
// rescales each row's earlier output (o: rows of dkp floats) by
// 2^(m_old - m_new). c > 0, so the max of the scaled scores is c times the
// max of the raw ones.
// Every row's max comes first, so that the rows' exp passes do not wait
// for one another: row by row (max, then exp against it) each exp pass
// waited for its max's reduction and the one before drained, and the
// softmax took 11 cycles per vector on Zen 3 for about 7 of arithmetic.
static void panel_softmax(float *s, int rows, int kc, const int *n_vis, const uint8_t *pad, float c, float *m,
                          float *l, float *o, int dkp)
{
    float m_new[XF_GEMM_MR], shift[XV_W] = {0}, alpha[XV_W];
    int seen[XF_GEMM_MR];
    for (int i = 0; i < rows; i++) {
        const float mt = row_max(s + (size_t)i * BC, n_vis[i], pad);
        seen[i] = mt != -INFINITY;
        m_new[i] = seen[i] && mt * c > m[i] ? mt * c : m[i];
        shift[i] = seen[i] ? m[i] - m_new[i] : 0.0f; // -inf on a row's first visible tile: alpha 0
    }
    xv_store(alpha, xv_exp2(xv_load(shift))); // every row's alpha in one vector (MR <= XV_W)
    for (int i = 0; i < rows; i++) {
        float *t = s + (size_t)i * BC;
        if (!seen[i]) { // nothing visible in this tile for this row
            memset(t, 0, (size_t)kc * sizeof *t);
            continue;
        }
        float *li = l + (size_t)i * XV_W;
        xv_store(li, xv_fma(xv_load(li), xv_set1(alpha[i]), row_exp_sum(t, kc, n_vis[i], c, m_new[i])));
        m[i] = m_new[i];
        if (alpha[i] != 1.0f) {
            const xv f = xv_set1(alpha[i]);
            float *oi = o + (size_t)i * dkp;
            for (int d = 0; d < dkp; d += XV_W) xv_store(oi + d, xv_mul(xv_load(oi + d), f));
        }
    }
}

// S (rows x NR panels of the tile, row stride BC) = Q_panel K_tile^T, Q
// read in place (rows of stride ldq), K panels as flash_pack_head packed
// them.
static void panel_scores(int rows, int dk, const float *q, int ldq, const float *kpanels, int npanels, float *s)
{
    if (rows == XF_GEMM_MR) {
        XF_FN(gemm_ukernel_panels)(dk, q, ldq, kpanels, s, BC, npanels);
        return;
    }
    for (int p = 0; p < npanels; p++) // pf = q: the panel is read again for the next K panel, already in L1
        XF_FN(gemm_tile)(dk, q, ldq, q, kpanels + (size_t)p * dk * XF_GEMM_NR, s + p * XF_GEMM_NR, BC, rows, 1, NULL, 0);
}

// Query rows i0..i0+BR (or to seq_q) of head (b,h) against every key tile
// (kv, visible: from flash_pack_head and flash_visible_tiles), in ws.
void XF_FN(flash_block)(const xf_attention_args *a, const float *kv, const uint16_t *visible,
                        void *ws, int b, int h, int i0)
{
    flash_ws *c = ws;
    const xf_attention_head x = xf_attention_head_at(a, b, h);
    float *out = x.out + (size_t)i0 * a->ldo;
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    const float *kp = kv, *vp = kv + XF_FN(packed_b_floats)(a->seq_k, a->dk);
    const int br = a->seq_q - i0 < BR ? a->seq_q - i0 : BR;
    const int dk = a->dk, sk = a->seq_k, dkp = c->dkp;
    const float c2 = (float)(1.4426950408889634 / sqrt((double)dk)); // log2 e / sqrt(dk), rounded once
    memset(c->o, 0, (size_t)BR_PAD * dkp * sizeof(float));
    for (int i = 0; i < br; i++) c->m[i] = -INFINITY;
    memset(c->l, 0, (size_t)br * XV_W * sizeof(float));
    for (int j0 = 0; j0 < sk; j0 += BC) {
        if (a->causal && j0 > i0 + br - 1) break; // this tile and all later ones are masked
        const int bc = visible[j0 / BC];
        if (!bc) continue;
        for (int r0 = 0; r0 < br; r0 += XF_GEMM_MR) {
            const int rows = br - r0 < XF_GEMM_MR ? br - r0 : XF_GEMM_MR;
            // Keys of the tile any row of the panel sees: under the causal
            // mask, up to the last row's diagonal.
            int kc = a->causal ? i0 + r0 + rows - j0 : bc;
            if (kc > bc) kc = bc;
            if (kc <= 0) continue; // the panel is above the diagonal for this tile
            panel_scores(rows, dk, x.q + (size_t)(i0 + r0) * a->ldq, a->ldq,
                         kp + (size_t)(j0 / XF_GEMM_NR) * dk * XF_GEMM_NR, (kc + XF_GEMM_NR - 1) / XF_GEMM_NR, c->s);
            int n_vis[XF_GEMM_MR];
            for (int i = 0; i < rows; i++) {
                n_vis[i] = a->causal ? i0 + r0 + i - j0 + 1 : kc;
                if (n_vis[i] > kc) n_vis[i] = kc;
                if (n_vis[i] < 0) n_vis[i] = 0;
            }
            panel_softmax(c->s, rows, kc, n_vis, pad ? pad + j0 : NULL, c2, c->m + r0, c->l + (size_t)r0 * XV_W,
                          c->o + (size_t)r0 * dkp, dkp);
            // O_panel += P V_tile, P read in place as the rows of the score tile
            for (int p = 0; p * XF_GEMM_NR < dk; p++)
                XF_FN(gemm_ukernel_rows)(kc, c->s, vp + ((size_t)p * sk + j0) * XF_GEMM_NR,
                                         c->o + (size_t)r0 * dkp + p * XF_GEMM_NR, dkp, 0, NULL, 0);
        }
    }
    for (int i = 0; i < br; i++) { // normalise; a row that saw no key stays 0
        const float l = xv_hsum(xv_load(c->l + (size_t)i * XV_W));
        const float inv = l > 0.0f ? 1.0f / l : 0.0f;
        float *o = c->o + (size_t)i * dkp, *dst = out + (size_t)i * a->ldo;
        for (int d = 0; d < dk; d++) dst[d] = o[d] * inv;
    }
}

// One thread's flash attention: a workspace, one head's packed K and V,
// the visible tiles of one batch.
typedef struct {
    void *ws;
    float *kv;
    uint16_t *visible;
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
        c->row_s = xf_alloc_lines((size_t)a->heads * a->seq_k * sizeof(float) + 64);
        c->row_o = xf_alloc_lines((size_t)a->heads * a->dk * sizeof(float) + 64);
        c->row_ml = malloc(2 * (size_t)a->heads * sizeof(float));
        if (!c->row_s || !c->row_o || !c->row_ml) {
            XF_FN(flash_release)(c);
            return -1;
        }
        *ctx = c;
        return 0;
    }
    c->ws = XF_FN(flash_ws_new)(a->dk);
    c->kv = xf_alloc_lines(XF_FN(flash_kv_floats)(a->seq_k, a->dk) * sizeof(float));
    c->visible = malloc(((size_t)XF_FN(flash_tiles)(a->seq_k) + 1) * sizeof *c->visible);
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
