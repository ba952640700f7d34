// bf16 attention on AMX: both products by tdpbf16ps, the softmax in fp32
// between them. Per batch and head:
// - S = Q K^T is the linear's product with K as the weight: K (seq_k, dk)
//   packed as an (n = keys, k = dk) W into pair tiles (tiles.h), the
//   query rows read in place by strided tile loads, 32 rows by 32 keys a
//   block of four accumulator tiles. The packed K and V are loaded plainly
//   (XF_AMX_B_KEPT, tiles.h), not streamed as the linear's W: every query
//   block of the head reads them again.
// - Each row's max of its visible raw scores; then, chunk by chunk of
//   keys (xf_amx_chunk: a chunk of P fills at most 3/4 of the L1), the
//   row's exps against that max in fp32 (avx512bf16/prob_rows.h, as the
//   fused fp32 attention computes them), rounded to bf16 into P (the one
//   rounding bf16 adds inside the attention, carried in the check's bound
//   as p_bf16), and O += P V on that chunk while it is in L1: P V is the
//   product with V^T as the weight, V packed as an (n = dk, k = keys) W. The exact
//   two-pass softmax: every p is against the row's final max, so nothing
//   is rescaled. Each row of O is then scaled by its 1 / sum and rounded.
// Causal blocks stop at the block's last visible key. A block of fewer
// than 32 query rows, or a dk that is not a multiple of 32, reads its
// queries from a zero-padded copy. At most XF_FEW_ROWS query rows (a
// decode step) run avx512bf16's attention (avx512bf16w's row kernel):
// packing K and V would cost as much as attending. Threads (--threads,
// OpenMP): the (batch, head) pairs shared out, each thread packing its
// heads into its own buffers; with fewer pairs than threads, the pairs'
// 32-row query blocks, dealt round-robin (causal blocks grow with i0),
// each thread packing the heads it meets. tdpbf16ps reads
// denormal inputs as zero, as vdpbf16ps does (avx512bf16/attention.c
// says what the bound covers).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/half.h"
#include "../avx512/vec.h"
#include "../avx512bf16/family.h"
#include "../avx512bf16/prob_rows.h"
#include "../isa/amx.h"
#include "../isa/team.h"
#include "../simd/kernel_table.h"
#include "family.h"
#include "tiles.h"
#include "../isa/huge.h"

// One thread's buffers.
typedef struct {
    xf_bf16 *kp;     // one head's K packed as an (n = keys, k = dk) W
    xf_bf16 *vp;     // its V packed as an (n = dk, k = keys) W
    long packed;     // the (batch, head) pair kp and vp hold, b * heads + h; -1: none
    xf_bf16 *q;      // MR x dkpad: a block's query rows, zero past seq_q and dk
    float *s;        // MR x keys at row stride lds: the block's scores, then scaled and masked
    xf_bf16 *p;      // MR x chunk keys at row stride ldp: a chunk of their exps in bf16 (unnormalised P)
    float *o;        // [dkpad / NR][MR][NR]: the block's O
} head_work;

typedef struct {
    head_work *work; // per thread
    int threads;
    int keys, dkpad; // seq_k and dk rounded up to 32
    // keys and one cache line: a tile's 16 rows at a power-of-two stride
    // (seq 2048: 8 KiB, 4 KiB) would fall into one L1 set
    int lds, ldp;
    int chunk;       // key blocks of one chunk of P (xf_amx_chunk)
    int swapped;     // the mutant: the halves of each pair of dk exchanged in the packed K
    void *few;       // few query rows: avx512bf16's context
} attention_ctx;

// Query rows i0.. (at most MR) of head h of batch b, against the packed
// head: S = Q K^T whole; each row's max; then chunk by chunk of keys, P in
// bf16 (unnormalised, against the row's final max: no rescaling) and O +=
// P V while that chunk of P is in L1; O scaled by each row's 1 / sum and
// rounded into out16.
static void attend_block(const xf_attention_args *a, const attention_ctx *c, head_work *w, int b, int h, int i0)
{
    const int dk = a->dk, rows = a->seq_q - i0 < MR ? a->seq_q - i0 : MR;
    // Causal: no row of the block sees a key past its last row.
    const int n = a->causal && i0 + rows < a->seq_k ? i0 + rows : a->seq_k;
    const int key_blocks = (n + TK - 1) / TK, dk_blocks = c->dkpad / TK, panels = c->dkpad / NR;
    const size_t col = (size_t)h * dk, row0 = (size_t)b * a->seq_q + i0;
    const xf_bf16 *q = a->q16 + row0 * a->ldq + col;
    size_t ldq = (size_t)a->ldq;
    if (rows < MR || dk != c->dkpad) { // a tile would read past the rows or row ends
        xf_amx_pad_rows(w->q, c->dkpad, q, ldq, rows, dk);
        q = w->q, ldq = (size_t)c->dkpad;
    }
    for (int kb = 0; kb < key_blocks; kb++) // 32 keys a block (NR == TK)
        xf_amx_block(dk_blocks, q, ldq, w->kp + (size_t)kb * dk_blocks * 2 * TILE, XF_AMX_B_KEPT, NULL, 0,
                     w->s + kb * NR, (size_t)c->lds);
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    const xv log2e_scale = xv_set1(1.4426950408889634f / sqrtf((float)dk));
    int n_vis[MR];
    xv neg_cmax[MR], sum[MR];
    for (int r = 0; r < rows; r++) {
        n_vis[r] = a->causal && i0 + r + 1 < n ? i0 + r + 1 : n; // keys past the diagonal are never read
        const float max = xf_prob_row_max(w->s + (size_t)r * c->lds, n_vis[r], pad);
        if (max == -INFINITY) n_vis[r] = 0; // no visible key: P and O zero
        neg_cmax[r] = xv_mul(xv_set1(max == -INFINITY ? 0.0f : -max), log2e_scale);
        sum[r] = xv_zero();
    }
    const size_t v_panel = (size_t)(c->keys / TK) * 2 * TILE;
    for (int kb0 = 0; kb0 < key_blocks; kb0 += c->chunk) {
        const int kbs = key_blocks - kb0 < c->chunk ? key_blocks - kb0 : c->chunk;
        for (int r = 0; r < rows; r++)
            xf_prob_row_exp(w->s + (size_t)r * c->lds, kb0 * TK, (kb0 + kbs) * TK, n_vis[r], pad, log2e_scale,
                            neg_cmax[r], w->p + (size_t)r * c->ldp, &sum[r]);
        for (int pan = 0; pan < panels; pan++) {
            float *o = w->o + (size_t)pan * MR * NR;
            xf_amx_block(kbs, w->p, (size_t)c->ldp, w->vp + pan * v_panel + (size_t)kb0 * 2 * TILE, XF_AMX_B_KEPT,
                         kb0 ? o : NULL, kb0 ? NR * sizeof *o : 0, o, NR);
        }
    }
    float inv[MR];
    for (int r = 0; r < rows; r++) inv[r] = n_vis[r] ? 1.0f / xv_hsum(sum[r]) : 0.0f;
    xf_bf16 *out = a->out16 + row0 * a->ldo + col;
    for (int pan = 0; pan < panels; pan++) {
        const int cols = dk - pan * NR < NR ? dk - pan * NR : NR;
        xf_avx512bf16_scale_round_rows(w->o + (size_t)pan * MR * NR, NR, inv, rows, cols, out + pan * NR, a->ldo);
    }
}

// This thread's K and V packed for head h of batch b, unless they are.
static void pack_head(const xf_attention_args *a, const attention_ctx *c, head_work *w, int b, int h)
{
    const long pair = (long)b * a->heads + h;
    if (w->packed == pair) return;
    const size_t kv_rows = xf_attention_kv_rows(a), col = (size_t)h * a->dk;
    xf_amx_pack(w->kp, a->seq_k, a->dk, a->k16 + b * kv_rows * a->ldk + col, (size_t)a->ldk, 1, c->swapped);
    xf_amx_pack(w->vp, a->dk, a->seq_k, a->v16 + b * kv_rows * a->ldv + col, 1, (size_t)a->ldv, 0);
    w->packed = pair;
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
    const int pairs = a->batch * a->heads, blocks = (a->seq_q + MR - 1) / MR;
#pragma omp parallel num_threads(c->threads)
    {
        const int t = xf_team_thread(), nt = xf_team_size();
        head_work *w = &c->work[t];
        w->packed = -1; // K and V change from call to call
        xf_amx_tiles_16x64();
        if (pairs >= nt) {
            int pa, pz;
            xf_team_share(pairs, t, nt, &pa, &pz);
            for (int pair = pa; pair < pz; pair++) {
                const int b = pair / a->heads, h = pair % a->heads;
                pack_head(a, c, w, b, h);
                for (int i0 = 0; i0 < a->seq_q; i0 += MR) attend_block(a, c, w, b, h, i0);
            }
        } else {
            for (long u = t; u < (long)pairs * blocks; u += nt) {
                const int pair = (int)(u / blocks), b = pair / a->heads, h = pair % a->heads;
                pack_head(a, c, w, b, h);
                attend_block(a, c, w, b, h, (int)(u % blocks) * MR);
            }
        }
        xf_amx_tiles_release();
    }
}

void xf_amx_attention_release(void *ctx)
{
    attention_ctx *c = ctx;
    if (!c) return;
    if (c->few) xf_avx512bf16_attention_release(c->few);
    for (int t = 0; c->work && t < c->threads; t++) {
        head_work *w = &c->work[t];
        free(w->kp), free(w->vp), free(w->q), free(w->s), free(w->p), free(w->o);
    }
    free(c->work);
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
    c->lds = c->keys + 64 / (int)sizeof(float);
    c->chunk = xf_amx_chunk(c->keys / TK);
    c->ldp = c->chunk * TK + 64 / (int)sizeof(xf_bf16);
    c->threads = xf_team_threads();
    c->work = calloc((size_t)c->threads, sizeof *c->work);
    if (!c->work) return free(c), -1;
    for (int t = 0; t < c->threads; t++) {
        head_work *w = &c->work[t];
        w->kp = xf_alloc_lines(xf_amx_packed_elems(a->seq_k, a->dk) * sizeof(xf_bf16));
        w->vp = xf_alloc_lines(xf_amx_packed_elems(a->dk, a->seq_k) * sizeof(xf_bf16));
        w->q = xf_alloc_lines((size_t)MR * c->dkpad * sizeof(xf_bf16));
        // zeroed once: the rows past a ragged block's end are read, never stored
        w->s = xf_alloc_lines_zero((size_t)MR * c->lds * sizeof(float));
        w->p = xf_alloc_lines_zero((size_t)MR * c->ldp * sizeof(xf_bf16));
        w->o = xf_alloc_lines((size_t)MR * c->dkpad * sizeof(float));
        if (!w->kp || !w->vp || !w->q || !w->s || !w->p || !w->o) return xf_amx_attention_release(c), -1;
    }
    *ctx = c;
    return 0;
}

int xf_amx_attention_prepare(const void *args, void **ctx) { return prepare(args, ctx, 0); }
int xf_amx_attention_prepare_pairs_swapped(const void *args, void **ctx) { return prepare(args, ctx, 1); }
