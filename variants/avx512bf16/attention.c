// bf16 attention with AVX512_BF16: both products of the attention by
// vdpbf16ps (two bf16 products, exact, added to an fp32 lane), the softmax
// in fp32 between them. Per batch and head:
// - K is packed into tiles of 16 keys with the pairs of dk interleaved,
//   [tile][dk/2][16][2]: one zmm is 16 keys x one pair of dk, and the same
//   pair of a query row (adjacent in the bf16 input: read in place,
//   broadcast as one 32-bit value) meets it in every lane. A block of BR
//   query rows times 32 keys keeps 12 accumulators: S = Q K^T in fp32.
// - Each row of S is masked and exponentiated in fp32 (base 2, the scale
//   folded into the exponent's FMA), and the exps are rounded to bf16: 16
//   of them in key order are 8 pairs of keys, the operand vdpbf16ps
//   wants. This rounding is the one bf16 adds inside the attention
//   (avx512bf16w keeps P in fp32); the check's bound adds u_bf16 sum_j p_j
//   |v_jd| for it (the variant's p_bf16, attention_ref.c). The row's
//   1 / sum scales its output, not its keys.
// - V is packed into panels of 16 columns with the pairs of keys
//   interleaved, [panel][keys/2][16][2]: O = P V by BR rows x 64 columns
//   (24 accumulators), the rows' bf16 P pairs broadcast.
// Causal blocks stop at the block's last visible key. Keys past seq_k are
// packed as zeros and masked in S; an odd number of keys gets a zero P
// past its end. At most XF_FEW_ROWS query rows (a decode step) run
// avx512bf16w's row kernel, which reads the bf16 cache in place: packing
// K and V would cost as much as attending.
// vdpbf16ps (and vcvtneps2bf16) read denormal inputs as zero: an exp
// under 2^-126 (a score 87 below its row's max) then adds nothing, at most
// 2^-126 |v_jd| per key, which the bound's (n+1) 2^-126 term covers for
// |v| <= 1; not modelled beyond that (as in linear.c), and the harness's
// draws (|v| <= 1.5) reach it only at such scores.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/half.h"
#include "../avx512/vec.h"
#include "../simd/kernel_table.h"
#include "family.h"
#include "prob_rows.h"
#include "../isa/huge.h"

enum { BR = 6, KT = 16, PAN = 16 };

typedef struct {
    xf_bf16 *kp;         // one head's K, [tile][pairs][KT][2], zero past seq_k and dk
    xf_bf16 *vp;         // its V, [panel][keys/2][PAN][2], zero past seq_k and dk
    float *s;            // BR rows of scores, then scaled and masked, row stride keys
    xf_bf16 *p;          // their exps in bf16 (unnormalised P), row stride keys
    int pairs, tiles, keys, panels; // pairs of dk; 16-key tiles (even); keys = tiles*KT; 16-column panels
    int dropped;         // the mutant: pair 1 of dk packed as zeros
    void *few;           // few query rows: avx512bf16w's context
} attention_ctx;

// The pair (x[0], x[1]) broadcast as one 32-bit lane value, low half first
// (as vdpbf16ps pairs them); and an odd dk's last element with a zero
// second half (never reading past it).
static inline __m512bh pair_at(const xf_bf16 *x)
{
    uint32_t v;
    memcpy(&v, x, sizeof v);
    return (__m512bh)_mm512_set1_epi32((int)v);
}
static inline __m512bh last_at(const xf_bf16 *x) { return (__m512bh)_mm512_set1_epi32((int)(uint32_t)x[0]); }

// Head h of batch b: k and v (seq_k, dk) at row strides ldk, ldv, packed.
// K: a key's pairs of dk are 32-bit words, each copied to its tile's row
// of that pair. V: two keys' rows widened to 32-bit lanes, the second
// shifted into the high halves, interleave into one zmm per 16 columns.
// Both read a head's dk columns of rows H dk apart, a stride the hardware
// prefetchers did not cover: on Zen 4 at seq 512 the packing held 13% of
// the attention's perf samples, most on each row's first load, and 4.9%
// with each row asked for PF_KEYS keys ahead (docs/performance.md).
enum { PF_KEYS = 16 };
static inline void prefetch_row(const xf_bf16 *r, int dk)
{
    for (int e = 0; e < dk; e += 32) _mm_prefetch((const char *)(r + e), _MM_HINT_T0);
}

// Columns c0..c0+cols (cols <= 16) of the V row r widened to 32-bit
// lanes, zero past cols or for a missing key (r NULL). The masked load
// reads no column past the row, so a ragged panel needs no copy.
static inline __m512i widen_cols(const xf_bf16 *r, int c0, int cols)
{
    if (!r) return _mm512_setzero_si512();
    const __mmask32 m = (__mmask32)((1u << cols) - 1);
    return _mm512_cvtepu16_epi32(_mm512_castsi512_si256(_mm512_maskz_loadu_epi16(m, r + c0)));
}

static void pack_head(const xf_attention_args *a, const attention_ctx *c, int b, int h)
{
    const int dk = a->dk, half = dk / 2;
    const size_t kv_rows = xf_attention_kv_rows(a), col = (size_t)h * dk, tile = (size_t)c->pairs * KT * 2;
    const xf_bf16 *kh = a->k16 + b * kv_rows * a->ldk + col, *vh = a->v16 + b * kv_rows * a->ldv + col;
    for (int j = 0; j < c->keys; j++) {
        xf_bf16 *kt = c->kp + (size_t)(j / KT) * tile + (size_t)(j % KT) * 2;
        if (j >= a->seq_k) {
            for (int p = 0; p < c->pairs; p++) kt[(size_t)p * KT * 2] = kt[(size_t)p * KT * 2 + 1] = 0;
            continue;
        }
        const xf_bf16 *kj = kh + (size_t)j * a->ldk;
        if (j + PF_KEYS < a->seq_k) prefetch_row(kj + (size_t)PF_KEYS * a->ldk, dk);
        for (int p = 0; p < half; p++) memcpy(kt + (size_t)p * KT * 2, kj + 2 * p, 2 * sizeof *kj);
        if (dk % 2) kt[(size_t)half * KT * 2] = kj[dk - 1], kt[(size_t)half * KT * 2 + 1] = 0;
        if (c->dropped && half > 1) kt[KT * 2] = kt[KT * 2 + 1] = 0;
    }
    const size_t panel = (size_t)(c->keys / 2) * PAN * 2;
    for (int jp = 0; jp < c->keys / 2; jp++) {
        const xf_bf16 *v0 = 2 * jp < a->seq_k ? vh + (size_t)2 * jp * a->ldv : NULL;
        const xf_bf16 *v1 = 2 * jp + 1 < a->seq_k ? v0 + a->ldv : NULL;
        if (2 * jp + 1 + PF_KEYS < a->seq_k)
            prefetch_row(v0 + (size_t)PF_KEYS * a->ldv, dk), prefetch_row(v1 + (size_t)PF_KEYS * a->ldv, dk);
        for (int pan = 0; pan < c->panels; pan++) {
            const int cols = dk - pan * PAN < PAN ? dk - pan * PAN : PAN;
            const __m512i l = widen_cols(v0, pan * PAN, cols),
                          u = _mm512_slli_epi32(widen_cols(v1, pan * PAN, cols), 16);
            _mm512_storeu_si512(c->vp + pan * panel + (size_t)jp * PAN * 2, _mm512_or_si512(l, u));
        }
    }
}

#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)

// s (BR, 32 keys per step, row stride keys) = the BR query rows at q[r]
// (bf16, dk each) times the packed keys of tiles [0, tiles).
static void scores(const attention_ctx *c, const xf_bf16 *const q[BR], int dk, int tiles, float *s)
{
    const size_t tile = (size_t)c->pairs * KT * 2;
    for (int t = 0; t < tiles; t += 2) {
        const xf_bf16 *k0 = c->kp + t * tile, *k1 = k0 + tile;
#define DECLARE(i) __m512 s##i##0 = _mm512_setzero_ps(), s##i##1 = _mm512_setzero_ps();
#define STEP(i)                                                                                               \
    {                                                                                                         \
        const __m512bh x = A(i);                                                                               \
        s##i##0 = _mm512_dpbf16_ps(s##i##0, x, w0), s##i##1 = _mm512_dpbf16_ps(s##i##1, x, w1);              \
    }
#define STORE(i)                                                                                              \
    _mm512_storeu_ps(s + (size_t)(i) * c->keys + t * KT, s##i##0);                                            \
    _mm512_storeu_ps(s + (size_t)(i) * c->keys + t * KT + KT, s##i##1);
        ROWS(DECLARE)
        int p = 0;
#define A(i) pair_at(q[i] + 2 * p)
        for (; 2 * p + 1 < dk; p++) {
            const __m512bh w0 = (__m512bh)_mm512_loadu_si512(k0 + p * KT * 2),
                           w1 = (__m512bh)_mm512_loadu_si512(k1 + p * KT * 2);
            ROWS(STEP)
        }
#undef A
#define A(i) last_at(q[i] + 2 * p)
        if (2 * p < dk) {
            const __m512bh w0 = (__m512bh)_mm512_loadu_si512(k0 + p * KT * 2),
                           w1 = (__m512bh)_mm512_loadu_si512(k1 + p * KT * 2);
            ROWS(STEP)
        }
#undef A
        ROWS(STORE)
#undef DECLARE
#undef STEP
#undef STORE
    }
}

// o (BR, 64 floats per row) = the BR bf16 probability rows at p[r] times
// the packed V panels pan..pan+3 over key pairs [0, kp).
static void pv4(const attention_ctx *c, const xf_bf16 *const p[BR], int kp, int pan, float *o)
{
    const size_t panel = (size_t)(c->keys / 2) * PAN * 2;
    const xf_bf16 *v = c->vp + pan * panel;
#define DECLARE(i) __m512 o##i##0 = _mm512_setzero_ps(), o##i##1 = o##i##0, o##i##2 = o##i##0, o##i##3 = o##i##0;
#define STEP(i)                                                                                               \
    {                                                                                                         \
        const __m512bh x = pair_at(p[i] + 2 * j);                                                              \
        o##i##0 = _mm512_dpbf16_ps(o##i##0, x, w0), o##i##1 = _mm512_dpbf16_ps(o##i##1, x, w1);              \
        o##i##2 = _mm512_dpbf16_ps(o##i##2, x, w2), o##i##3 = _mm512_dpbf16_ps(o##i##3, x, w3);              \
    }
#define STORE(i)                                                                                              \
    _mm512_storeu_ps(o + (i) * 4 * PAN, o##i##0), _mm512_storeu_ps(o + (i) * 4 * PAN + PAN, o##i##1);         \
    _mm512_storeu_ps(o + (i) * 4 * PAN + 2 * PAN, o##i##2), _mm512_storeu_ps(o + (i) * 4 * PAN + 3 * PAN, o##i##3);
    ROWS(DECLARE)
    for (int j = 0; j < kp; j++, v += PAN * 2) {
        const __m512bh w0 = (__m512bh)_mm512_loadu_si512(v), w1 = (__m512bh)_mm512_loadu_si512(v + panel),
                       w2 = (__m512bh)_mm512_loadu_si512(v + 2 * panel),
                       w3 = (__m512bh)_mm512_loadu_si512(v + 3 * panel);
        ROWS(STEP)
    }
    ROWS(STORE)
#undef DECLARE
#undef STEP
#undef STORE
}

// The same for the one panel pan (a dk that is not a multiple of 64):
// o is (BR, 16).
static void pv1(const attention_ctx *c, const xf_bf16 *const p[BR], int kp, int pan, float *o)
{
    const xf_bf16 *v = c->vp + pan * (size_t)(c->keys / 2) * PAN * 2;
#define DECLARE(i) __m512 o##i = _mm512_setzero_ps();
#define STEP(i) o##i = _mm512_dpbf16_ps(o##i, pair_at(p[i] + 2 * j), w);
#define STORE(i) _mm512_storeu_ps(o + (i) * PAN, o##i);
    ROWS(DECLARE)
    for (int j = 0; j < kp; j++, v += PAN * 2) {
        const __m512bh w = (__m512bh)_mm512_loadu_si512(v);
        ROWS(STEP)
    }
    ROWS(STORE)
#undef DECLARE
#undef STEP
#undef STORE
}

// The softmax of query row i over its first n raw scores s, in two passes
// (prob_rows.h, as the amx attention's): the max m of the visible raw
// scores, then p_j = bf16(2^(c s_j - c m)) unnormalised, c = log2 e /
// sqrt(dk) (masked keys give exactly 0), while summing the fp32 exps; p is
// zero from there to the end of the last pair. Against the avx512
// softmax's passes (scaled and masked scores stored, then the natural exp)
// the softmax's share of the perf samples at seq 512 on Zen 4 fell from
// 18.7% to 14.4% (docs/performance.md). Returns 1 / sum, by which the
// row's P V is multiplied (0 for a row with no visible key): one multiply
// per output instead of one per key, the same two roundings as
// normalising p (kernels/ref_terms.h, xf_weight_err).
static float softmax_row_bf16(int n, const float *s, xv c, const uint8_t *pad, int causal, int i, xf_bf16 *p)
{
    const int n_vis = causal && i + 1 < n ? i + 1 : n; // keys past the diagonal are never read
    const float max = xf_prob_row_max(s, n_vis, pad);
    int j = 0;
    float inv = 0.0f;
    if (max != -INFINITY) {
        xv sum = xv_zero();
        j = (n_vis + XV_W - 1) / XV_W * XV_W; // within the row: keys is a multiple of 2 KT
        xf_prob_row_exp(s, 0, j, n_vis, pad, c, xv_mul(xv_set1(-max), c), p, &sum);
        inv = 1.0f / xv_hsum(sum);
    }
    for (; j < n + n % 2; j++) p[j] = 0;
    return inv;
}

// dst (rows, cols) bf16 at row stride ldd = src (rows, cols) fp32 at row
// stride lds times the row's scale[r], rounded (vec.h's rounding, whole
// vectors; kernels/half.h's for the rest).
void XF_DOT_FN(scale_round_rows)(const float *src, int lds, const float *scale, int rows, int cols, xf_bf16 *dst,
                                 size_t ldd)
{
    for (int r = 0; r < rows; r++, src += lds, dst += ldd) {
        const xv f = xv_set1(scale[r]);
        int e = 0;
        for (; e + XV_W <= cols; e += XV_W) xv_store_bf16(dst + e, xv_mul(xv_load(src + e), f));
        for (; e < cols; e++) dst[e] = xf_bf16_from_f32(src[e] * scale[r]);
    }
}

// Query rows i0.. (at most BR) of head h of batch b, against the packed
// head: S, the softmax rows, P in bf16, O = P V rounded into out16.
static void attend_block(const xf_attention_args *a, attention_ctx *c, int b, int h, int i0)
{
    const int dk = a->dk, rows = a->seq_q - i0 < BR ? a->seq_q - i0 : BR;
    // Causal: no row of the block sees a key past its last row.
    const int n = a->causal && i0 + rows < a->seq_k ? i0 + rows : a->seq_k;
    const size_t col = (size_t)h * dk, row0 = (size_t)b * a->seq_q + i0;
    const xf_bf16 *q[BR], *p[BR];
    for (int r = 0; r < BR; r++) { // a ragged block repeats its last row, whose copies are never stored
        const int rr = r < rows ? r : rows - 1;
        q[r] = a->q16 + (row0 + rr) * a->ldq + col;
        p[r] = c->p + (size_t)rr * c->keys;
    }
    scores(c, q, dk, (n + 2 * KT - 1) / (2 * KT) * 2, c->s);
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    const xv log2e_scale = xv_set1(1.4426950408889634f / sqrtf((float)dk));
    float inv[BR];
    for (int r = 0; r < rows; r++)
        inv[r] = softmax_row_bf16(n, c->s + (size_t)r * c->keys, log2e_scale, pad, a->causal, i0 + r,
                                  c->p + (size_t)r * c->keys);
    const int kp = (n + 1) / 2;
    float o[BR * 4 * PAN];
    xf_bf16 *out = a->out16 + row0 * a->ldo + col;
    int pan = 0;
    for (; pan + 4 <= c->panels; pan += 4) {
        pv4(c, p, kp, pan, o);
        const int cols = dk - pan * PAN < 4 * PAN ? dk - pan * PAN : 4 * PAN;
        XF_DOT_FN(scale_round_rows)(o, 4 * PAN, inv, rows, cols, out + pan * PAN, a->ldo);
    }
    for (; pan < c->panels; pan++) {
        pv1(c, p, kp, pan, o);
        const int cols = dk - pan * PAN < PAN ? dk - pan * PAN : PAN;
        XF_DOT_FN(scale_round_rows)(o, PAN, inv, rows, cols, out + pan * PAN, a->ldo);
    }
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk); all bf16
void XF_DOT_FN(attention_run)(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = ctx;
    if (c->few) {
        XF_DOT_W_FN(attention_run)(args, c->few);
        return;
    }
    for (int b = 0; b < a->batch; b++)
        for (int h = 0; h < a->heads; h++) {
            pack_head(a, c, b, h);
            for (int i0 = 0; i0 < a->seq_q; i0 += BR) attend_block(a, c, b, h, i0);
        }
}

void XF_DOT_FN(attention_release)(void *ctx)
{
    attention_ctx *c = ctx;
    if (!c) return;
    if (c->few) XF_DOT_W_FN(attention_release)(c->few);
    free(c->kp), free(c->vp), free(c->s), free(c->p);
    free(c);
}

static int prepare(const xf_attention_args *a, void **ctx, int dropped)
{
    attention_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    if (a->seq_q <= XF_FEW_ROWS) {
        if (XF_DOT_W_FN(attention_prepare)(a, &c->few) != 0) return free(c), -1;
        *ctx = c;
        return 0;
    }
    c->dropped = dropped;
    c->pairs = (a->dk + 1) / 2;
    c->tiles = (a->seq_k + 2 * KT - 1) / (2 * KT) * 2;
    c->keys = c->tiles * KT;
    c->panels = (a->dk + PAN - 1) / PAN;
    c->kp = xf_alloc_lines((size_t)c->tiles * c->pairs * KT * 2 * sizeof(xf_bf16));
    c->vp = xf_alloc_lines((size_t)c->panels * c->keys * PAN * sizeof(xf_bf16));
    c->s = xf_alloc_lines((size_t)BR * c->keys * sizeof(float));
    c->p = xf_alloc_lines((size_t)BR * c->keys * sizeof(xf_bf16));
    if (!c->kp || !c->vp || !c->s || !c->p) return XF_DOT_FN(attention_release)(c), -1;
    *ctx = c;
    return 0;
}

int XF_DOT_FN(attention_prepare)(const void *args, void **ctx) { return prepare(args, ctx, 0); }
int XF_DOT_FN(attention_prepare_dropped_pair)(const void *args, void **ctx) { return prepare(args, ctx, 1); }
