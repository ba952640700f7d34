// bf16 attention with fp32 arithmetic (bf16fma.h): Q, K, V and the output
// stored in bf16, scores, softmax and the P V sums in fp32 (P is never
// stored in bf16, so the output's rounding is the only one bf16 adds).
// - Query blocks (more than XF_FEW_ROWS query rows): per batch and head,
//   Q, K and V are widened into fp32 rows and the fp32 family's fused
//   attention runs on them (variants/simd/flash.c, through its kernel
//   table): widening is O(seq dk) work against the O(seq^2 dk) of the
//   attention. The head's output is rounded to bf16 on the way out.
// - Few query rows (a decode step): K and V are read in place from the
//   bf16 cache (half the bytes of an fp32 cache), each key widened as it
//   is read, as the fp32 families' attend_heads (variants/simd/decode.c).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bf16fma.h"
#include "../isa/huge.h"

typedef struct {
    const xf_simd_kernels *k;
    float *qf, *kf, *vf, *of; // one head widened: (seq_q,dk), (seq_k,dk) twice; its output (seq_q,dk)
    float *kv;                // the head's K and V packed by the fp32 flash
    void *ws;
    uint16_t *visible;
    float *s; // few rows: scores (heads,seq_k)
} attention_ctx;

// The dot product of n fp32 values and n bf16 values.
static float dot_bf16(const float *x, const xf_bf16 *y, int n)
{
    xv acc0 = xv_zero(), acc1 = xv_zero();
    int c = 0;
    for (; c + 2 * XV_W <= n; c += 2 * XV_W) {
        acc0 = xv_fma(xv_load(x + c), xv_load_bf16(y + c), acc0);
        acc1 = xv_fma(xv_load(x + c + XV_W), xv_load_bf16(y + c + XV_W), acc1);
    }
    for (; c + XV_W <= n; c += XV_W) acc0 = xv_fma(xv_load(x + c), xv_load_bf16(y + c), acc0);
    float tail = 0.0f;
    for (; c < n; c++) tail += x[c] * xf_bf16_to_f32(y[c]);
    return xv_hsum(xv_add(acc0, acc1)) + tail;
}

// Query row i of batch b, every head: the row widened into ctx->qf
// (heads*dk), raw scores against the visible keys (read in key order, all
// heads of a key together: one sequential stream through the cache), each
// head's masked, scaled softmax (the fp32 family's row), then
// out = sum_j p_j v_j with V read in key order too, rounded to bf16.
static void attend_row(const xf_attention_args *a, attention_ctx *c, int b, int i)
{
    const int H = a->heads, dk = a->dk, d = H * dk, n = a->seq_k;
    const size_t kv_rows = xf_attention_kv_rows(a);
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    const int n_vis = a->causal && i + 1 < n ? i + 1 : n; // keys past the diagonal are never read
    float *q = c->qf, *o = c->of, *s = c->s;
    xf_bf16_widen_rows(a->q16 + ((size_t)b * a->seq_q + i) * a->ldq, 0, 1, d, q, 0);
    for (int j = 0; j < n_vis; j++) {
        if (pad && pad[j]) { // masked by the softmax row: no dot product
            for (int h = 0; h < H; h++) s[(size_t)h * n + j] = -INFINITY;
            continue;
        }
        const xf_bf16 *kj = a->k16 + (b * kv_rows + j) * a->ldk;
        for (int h = 0; h < H; h++) s[(size_t)h * n + j] = dot_bf16(q + (size_t)h * dk, kj + (size_t)h * dk, dk);
    }
    const float scale = 1.0f / sqrtf((float)dk);
    for (int h = 0; h < H; h++) c->k->softmax_row(n, s + (size_t)h * n, scale, pad, a->causal, i);
    memset(o, 0, (size_t)d * sizeof *o);
    for (int j = 0; j < n_vis; j++) {
        const xf_bf16 *vj = a->v16 + (b * kv_rows + j) * a->ldv;
        for (int h = 0; h < H; h++) {
            const float p = s[(size_t)h * n + j];
            if (p == 0.0f) continue; // masked, or underflowed: adds nothing
            const xv pv = xv_set1(p);
            float *oh = o + (size_t)h * dk;
            const xf_bf16 *vh = vj + (size_t)h * dk;
            int e = 0;
            for (; e + XV_W <= dk; e += XV_W) xv_store(oh + e, xv_fma(pv, xv_load_bf16(vh + e), xv_load(oh + e)));
            for (; e < dk; e++) oh[e] += p * xf_bf16_to_f32(vh[e]);
        }
    }
    xf_bf16_round_rows(o, 0, 1, d, a->out16 + ((size_t)b * a->seq_q + i) * a->ldo, 0);
}

// Head (b,h): widened, the fp32 fused attention on a one-head view, the
// output rounded into its columns of out16.
static void attend_head(const xf_attention_args *a, attention_ctx *c, int b, int h)
{
    const int dk = a->dk;
    const size_t kv_rows = xf_attention_kv_rows(a), col = (size_t)h * dk;
    xf_bf16_widen_rows(a->q16 + (size_t)b * a->seq_q * a->ldq + col, a->ldq, a->seq_q, dk, c->qf, dk);
    xf_bf16_widen_rows(a->k16 + b * kv_rows * a->ldk + col, a->ldk, a->seq_k, dk, c->kf, dk);
    xf_bf16_widen_rows(a->v16 + b * kv_rows * a->ldv + col, a->ldv, a->seq_k, dk, c->vf, dk);
    const xf_attention_args one = {.batch = 1, .heads = 1, .dk = dk, .seq_q = a->seq_q, .seq_k = a->seq_k,
                                   .q = c->qf, .ldq = dk, .k = c->kf, .ldk = dk, .v = c->vf, .ldv = dk,
                                   .key_pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL,
                                   .causal = a->causal, .out = c->of, .ldo = dk};
    if (h == 0) c->k->flash_visible_tiles(&one, 0, c->visible);
    c->k->flash_pack_head(&one, 0, 0, c->kv);
    for (int i0 = 0; i0 < a->seq_q; i0 += c->k->flash_br()) c->k->flash_block(&one, c->kv, c->visible, c->ws, 0, 0, i0);
    xf_bf16_round_rows(c->of, dk, a->seq_q, dk, a->out16 + (size_t)b * a->seq_q * a->ldo + col, a->ldo);
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk); all bf16
void XF_BF_FN(attention_run)(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = ctx;
    for (int b = 0; b < a->batch; b++) {
        if (c->s)
            for (int i = 0; i < a->seq_q; i++) attend_row(a, c, b, i);
        else
            for (int h = 0; h < a->heads; h++) attend_head(a, c, b, h);
    }
}

void XF_BF_FN(attention_release)(void *ctx)
{
    attention_ctx *c = ctx;
    if (!c) return;
    if (c->ws) c->k->flash_ws_free(c->ws);
    free(c->qf), free(c->kf), free(c->vf), free(c->of), free(c->kv), free(c->visible), free(c->s);
    free(c);
}

int XF_BF_FN(attention_prepare)(const void *args, void **ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->k = &XF_FN(kernels);
    const size_t d = (size_t)a->heads * a->dk;
    if (a->seq_q <= XF_FEW_ROWS) {
        c->qf = xf_alloc_lines(d * sizeof(float)), c->of = xf_alloc_lines(d * sizeof(float));
        c->s = xf_alloc_lines(((size_t)a->heads * a->seq_k + 1) * sizeof(float));
        if (!c->qf || !c->of || !c->s) return XF_BF_FN(attention_release)(c), -1;
        *ctx = c;
        return 0;
    }
    c->qf = xf_alloc_lines((size_t)a->seq_q * a->dk * sizeof(float));
    c->of = xf_alloc_lines((size_t)a->seq_q * a->dk * sizeof(float));
    c->kf = xf_alloc_lines((size_t)a->seq_k * a->dk * sizeof(float));
    c->vf = xf_alloc_lines((size_t)a->seq_k * a->dk * sizeof(float));
    c->kv = xf_alloc_lines(c->k->flash_kv_floats(a->seq_k, a->dk) * sizeof(float));
    c->visible = malloc(((size_t)c->k->flash_tiles(a->seq_k) + 1) * sizeof *c->visible);
    c->ws = c->k->flash_ws_new(a->dk);
    if (!c->qf || !c->of || !c->kf || !c->vf || !c->kv || !c->visible || !c->ws)
        return XF_BF_FN(attention_release)(c), -1;
    *ctx = c;
    return 0;
}
