// bf16 attention on AMX: both products by tdpbf16ps, the softmax in fp32
// between them. Per batch and head:
// - S = Q K^T is the linear's product with K as the weight: K (seq_k, dk)
//   packed as an (n = keys, k = dk) W into pair tiles (tiles.h), the
//   query rows read in place by strided tile loads, 32 rows by 32 keys a
//   block of four accumulator tiles.
// - Each row of S is masked and exponentiated in fp32 (softmax_row_p, as
//   the fused fp32 attention does) and P rounded to bf16 (the one rounding
//   bf16 adds inside the attention, carried in the check's bound as
//   p_bf16), zero past the row's last visible key to the end of its 32-key
//   block.
// - O = P V is the product with V^T as the weight: V packed as an
//   (n = dk, k = keys) W, P's rows read in place; each row of O is scaled
//   by its 1 / sum and rounded.
// Causal blocks stop at the block's last visible key. A block of fewer
// than 32 query rows, or a dk that is not a multiple of 32, reads its
// queries from a zero-padded copy. At most XF_FEW_ROWS query rows (a
// decode step) run avx512bf16's attention (avx512bf16w's row kernel):
// packing K and V would cost as much as attending. tdpbf16ps reads
// denormal inputs as zero, as vdpbf16ps does (avx512bf16/attention.c
// says what the bound covers).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/half.h"
#include "../avx512/vec.h"
#include "../avx512bf16/family.h"
#include "../isa/amx.h"
#include "../simd/kernel_table.h"
#include "family.h"
#include "tiles.h"

typedef struct {
    xf_bf16 *kp;     // one head's K packed as an (n = keys, k = dk) W
    xf_bf16 *vp;     // its V packed as an (n = dk, k = keys) W
    xf_bf16 *q;      // MR x dkpad: a block's query rows, zero past seq_q and dk
    float *s;        // MR x keys at row stride lds: the block's scores, then scaled and masked
    xf_bf16 *p;      // MR x keys at row stride ldp: their exps in bf16 (unnormalised P)
    float *o;        // [dkpad / NR][MR][NR]: the block's O
    int keys, dkpad; // seq_k and dk rounded up to 32
    // keys and one cache line: a tile's 16 rows at a power-of-two stride
    // (seq 2048: 8 KiB, 4 KiB) would fall into one L1 set
    int lds, ldp;
    int swapped;     // the mutant: the halves of each pair of dk exchanged in the packed K
    void *few;       // few query rows: avx512bf16's context
} attention_ctx;

// Query row i's softmax over its first n raw scores s (row of the block's
// S), as the fused fp32 attention computes it (simd/flash.c): the max of
// the visible raw scores first, no pass that stores scaled scores, then
// p_j = bf16(2^(c s_j - c max)) unnormalised, with c = log2 e / sqrt(dk)
// (one FMA and the base-2 exp, whose roundings are the ones the reference
// grants each exp argument: xf_softmax_arg_error), while summing the fp32
// exps; padded keys and keys past the row's last visible one give 0, and
// p is zero on to end. Returns 1 / sum (0 for a row with no visible key),
// by which the row's P V is multiplied. vcvtneps2bf16 rounds as
// kernels/half.h does and reads a denormal as zero, which tdpbf16ps would
// do with its bf16 value anyway.
static float softmax_row_p(int n, const float *s, float c, const uint8_t *pad, int causal, int i, xf_bf16 *p,
                           int end)
{
    const int n_vis = causal && i + 1 < n ? i + 1 : n; // keys past the diagonal are never read
    xv vmax = xv_set1(-INFINITY);
    int j = 0;
    for (; j + XV_W <= n_vis; j += XV_W) {
        xv v = xv_load(s + j);
        if (pad) v = xv_pad_to_neg_inf(v, pad + j);
        vmax = xv_max(vmax, v);
    }
    float tail[XV_W]; // the last n_vis % XV_W scores, masked one by one (a vector would read pad past the row)
    const int left = n_vis - j;
    for (int t = 0; t < XV_W; t++) tail[t] = t < left && !(pad && pad[j + t]) ? s[j + t] : -INFINITY;
    const float max = xv_hmax(xv_max(vmax, xv_load(tail)));
    float inv = 0.0f;
    int done = 0;
    if (max != -INFINITY) {
        const xv vc = xv_set1(c), neg_m = xv_set1(-c * max);
        xv sum = xv_zero();
        for (j = 0; j + XV_W <= n_vis; j += XV_W) {
            xv v = xv_load(s + j);
            if (pad) v = xv_pad_to_neg_inf(v, pad + j);
            const xv e = xv_exp2(xv_fma(v, vc, neg_m));
            const __m256bh b = _mm512_cvtneps_pbh(e);
            memcpy(p + j, &b, sizeof b);
            sum = xv_add(sum, e);
        }
        if (left) {
            float e[XV_W];
            const xv ev = xv_exp2(xv_fma(xv_load(tail), vc, neg_m)); // -inf lanes give 0
            xv_store(e, ev);
            sum = xv_add(sum, ev);
            for (int t = 0; t < left; t++) p[j + t] = xf_bf16_from_f32(e[t]);
        }
        inv = 1.0f / xv_hsum(sum);
        done = n_vis;
    }
    memset(p + done, 0, (size_t)(end - done) * sizeof *p);
    return inv;
}

// Query rows i0.. (at most MR) of head h of batch b, against the packed
// head: S, the softmax rows, P in bf16, O = P V rounded into out16.
static void attend_block(const xf_attention_args *a, attention_ctx *c, int b, int h, int i0)
{
    const int dk = a->dk, rows = a->seq_q - i0 < MR ? a->seq_q - i0 : MR;
    // Causal: no row of the block sees a key past its last row.
    const int n = a->causal && i0 + rows < a->seq_k ? i0 + rows : a->seq_k;
    const int key_blocks = (n + TK - 1) / TK, dk_blocks = c->dkpad / TK;
    const size_t col = (size_t)h * dk, row0 = (size_t)b * a->seq_q + i0;
    const xf_bf16 *q = a->q16 + row0 * a->ldq + col;
    size_t ldq = (size_t)a->ldq;
    if (rows < MR || dk != c->dkpad) { // a tile would read past the rows or row ends
        xf_amx_pad_rows(c->q, c->dkpad, q, ldq, rows, dk);
        q = c->q, ldq = (size_t)c->dkpad;
    }
    for (int kb = 0; kb < key_blocks; kb++) // 32 keys a block (NR == TK)
        xf_amx_block(dk_blocks, q, ldq, c->kp + (size_t)kb * dk_blocks * 2 * TILE, NULL, 0, c->s + kb * NR,
                     (size_t)c->lds);
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    const float log2e_scale = 1.4426950408889634f / sqrtf((float)dk);
    float inv[MR];
    for (int r = 0; r < rows; r++)
        inv[r] = softmax_row_p(n, c->s + (size_t)r * c->lds, log2e_scale, pad, a->causal, i0 + r,
                               c->p + (size_t)r * c->ldp, key_blocks * TK);
    // O = P V by chunks of keys, P's rows of a chunk in L1 for every panel
    const size_t v_panel = (size_t)(c->keys / TK) * 2 * TILE;
    const int chunk = xf_amx_chunk(key_blocks), panels = c->dkpad / NR;
    for (int kb0 = 0; kb0 < key_blocks; kb0 += chunk) {
        const int kbs = key_blocks - kb0 < chunk ? key_blocks - kb0 : chunk;
        for (int pan = 0; pan < panels; pan++) {
            float *o = c->o + (size_t)pan * MR * NR;
            xf_amx_block(kbs, c->p + (size_t)kb0 * TK, (size_t)c->ldp, c->vp + pan * v_panel + (size_t)kb0 * 2 * TILE,
                         kb0 ? o : NULL, kb0 ? NR * sizeof *o : 0, o, NR);
        }
    }
    xf_bf16 *out = a->out16 + row0 * a->ldo + col;
    for (int pan = 0; pan < panels; pan++) {
        const int cols = dk - pan * NR < NR ? dk - pan * NR : NR;
        xf_avx512bf16_scale_round_rows(c->o + (size_t)pan * MR * NR, NR, inv, rows, cols, out + pan * NR, a->ldo);
    }
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk); all bf16
void xf_amx_attention_run(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = ctx;
    if (c->few) {
        xf_avx512bf16_attention_run(args, c->few);
        return;
    }
    xf_amx_tiles_16x64();
    const size_t kv_rows = xf_attention_kv_rows(a);
    for (int b = 0; b < a->batch; b++)
        for (int h = 0; h < a->heads; h++) {
            const size_t col = (size_t)h * a->dk;
            xf_amx_pack(c->kp, a->seq_k, a->dk, a->k16 + b * kv_rows * a->ldk + col, (size_t)a->ldk, 1, c->swapped);
            xf_amx_pack(c->vp, a->dk, a->seq_k, a->v16 + b * kv_rows * a->ldv + col, 1, (size_t)a->ldv, 0);
            for (int i0 = 0; i0 < a->seq_q; i0 += MR) attend_block(a, c, b, h, i0);
        }
    xf_amx_tiles_release();
}

void xf_amx_attention_release(void *ctx)
{
    attention_ctx *c = ctx;
    if (!c) return;
    if (c->few) xf_avx512bf16_attention_release(c->few);
    free(c->kp), free(c->vp), free(c->q), free(c->s), free(c->p), free(c->o);
    free(c);
}

// swapped: the mutant's bug (xf_amx_pack).
static int prepare(const xf_attention_args *a, void **ctx, int swapped)
{
    attention_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    if (a->seq_q <= XF_FEW_ROWS) {
        if (xf_avx512bf16_attention_prepare(a, &c->few) != 0) return free(c), -1;
        *ctx = c;
        return 0;
    }
    c->swapped = swapped;
    c->keys = (a->seq_k + TK - 1) / TK * TK;
    c->dkpad = (a->dk + TK - 1) / TK * TK;
    c->kp = malloc(xf_amx_packed_elems(a->seq_k, a->dk) * sizeof(xf_bf16));
    c->vp = malloc(xf_amx_packed_elems(a->dk, a->seq_k) * sizeof(xf_bf16));
    c->q = malloc((size_t)MR * c->dkpad * sizeof(xf_bf16));
    // zeroed once: the rows past a ragged block's end are read, never stored
    c->lds = c->keys + 64 / (int)sizeof(float);
    c->ldp = c->keys + 64 / (int)sizeof(xf_bf16);
    c->s = calloc((size_t)MR * c->lds, sizeof(float));
    c->p = calloc((size_t)MR * c->ldp, sizeof(xf_bf16));
    c->o = malloc((size_t)MR * c->dkpad * sizeof(float));
    if (!c->kp || !c->vp || !c->q || !c->s || !c->p || !c->o) return xf_amx_attention_release(c), -1;
    *ctx = c;
    return 0;
}

int xf_amx_attention_prepare(const void *args, void **ctx) { return prepare(args, ctx, 0); }
int xf_amx_attention_prepare_pairs_swapped(const void *args, void **ctx) { return prepare(args, ctx, 1); }
