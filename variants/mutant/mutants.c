// Deliberately broken variants. They exist only to prove that the checker
// bites: each reproduces a bug people really write, and tests/ require every
// one of them to FAIL. Each wraps the naive kernel and breaks one thing, so
// a pass would point at the checker, not at the kernel.
// Linked only into xfbench-mutants, never into xfbench.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../naive/naive.h"
#ifdef XF_HAVE_AVX2BF16
#include "../isa/isa.h"
#include "../bf16fma/entry_points.h"
XF_BF16_DECLARE(avx2bf16)
static const char *avx2_unavailable(void) { return xf_isa_unavailable(XF_ISA_AVX2); }
#endif
#ifdef XF_HAVE_AVX512BF16
#include "../avx512bf16/family.h"
#ifdef XF_HAVE_AMX
#include "../amx/family.h"
#endif
#include "../simd/kernel_table.h"
#endif

// Attention without the 1/sqrt(dk) scale: feeding Q * sqrt(dk) to the
// correct kernel computes exactly softmax(Q K^T) V.
static void scale_dropped(const void *args, void *ctx)
{
    xf_attention_args a = *(const xf_attention_args *)args;
    size_t count = (size_t)a.batch * a.seq_q * a.ldq;
    float *q = malloc(count * sizeof *q);
    const float s = sqrtf((float)a.dk);
    for (size_t i = 0; i < count; i++) q[i] = a.q[i] * s;
    a.q = q;
    xf_naive_attention(&a, ctx);
    free(q);
}

// The padding mask read one key to the right (key_pad[j + 1]).
static void mask_shifted(const void *args, void *ctx)
{
    xf_attention_args a = *(const xf_attention_args *)args;
    if (!a.key_pad) {
        xf_naive_attention(&a, ctx);
        return;
    }
    size_t count = (size_t)a.batch * a.seq_k;
    uint8_t *pad = malloc(count);
    for (int b = 0; b < a.batch; b++)
        for (int j = 0; j < a.seq_k; j++)
            pad[(size_t)b * a.seq_k + j] = j + 1 < a.seq_k ? a.key_pad[(size_t)b * a.seq_k + j + 1] : 0;
    a.key_pad = pad;
    xf_naive_attention(&a, ctx);
    free(pad);
}

static void causal_off(const void *args, void *ctx)
{
    xf_attention_args a = *(const xf_attention_args *)args;
    a.causal = 0;
    xf_naive_attention(&a, ctx);
}

// Heads 0 and 1 written to each other's columns (a head-indexing bug).
static void heads_swapped(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    xf_naive_attention(a, ctx);
    if (a->heads < 2) return;
    for (size_t row = 0; row < (size_t)a->batch * a->seq_q; row++) {
        float *o = a->out + row * a->ldo;
        for (int d = 0; d < a->dk; d++) {
            float t = o[d];
            o[d] = o[a->dk + d];
            o[a->dk + d] = t;
        }
    }
}

// Keras' LayerNormalization default epsilon (1e-3) instead of PyTorch's 1e-5.
static void keras_eps(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_add_layernorm_eps(args, 1e-3f);
}

// RMSNorm without its epsilon (x / sqrt(mean(x^2))): invisible on rows of
// ordinary size, a third of y on the quiet rows (harness/stages/rmsnorm.c).
static void rms_eps_dropped(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_rmsnorm_eps(args, 0.0f);
}

// Writes one element past the end of y; only the guard zone can see it.
static void write_past_end(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    xf_naive_linear(a, ctx);
    a->y[(size_t)a->m * a->n] = 0.0f;
}

static void bias_dropped(const void *args, void *ctx)
{
    xf_linear_args a = *(const xf_linear_args *)args;
    a.b = NULL;
    xf_naive_linear(&a, ctx);
}

// The last output row never written.
static void last_row_skipped(const void *args, void *ctx)
{
    xf_linear_args a = *(const xf_linear_args *)args;
    a.m -= 1;
    xf_naive_linear(&a, ctx);
}

static void softmax_mask_ignored(const void *args, void *ctx)
{
    xf_softmax_args a = *(const xf_softmax_args *)args;
    a.key_pad = NULL;
    xf_naive_softmax(&a, ctx);
}

// Embedding without the sqrt(d_model) factor: a table divided by it first.
static void embed_unscaled(const void *args, void *ctx)
{
    xf_embed_args a = *(const xf_embed_args *)args;
    size_t count = (size_t)a.vocab * a.d_model;
    float *t = malloc(count * sizeof *t);
    const float s = sqrtf((float)a.d_model);
    for (size_t i = 0; i < count; i++) t[i] = a.table[i] / s;
    a.table = t;
    xf_naive_embed(&a, ctx);
    free(t);
}

// The tied table scaled by sqrt(d_model) as the embedding scales it (the
// head must not be).
static void lm_head_scaled(const void *args, void *ctx)
{
    const xf_lm_head_args *a = args;
    xf_naive_lm_head(a, ctx);
    const float s = sqrtf((float)a->d_model);
    for (size_t i = 0; i < (size_t)a->rows * a->vocab; i++) a->logits[i] *= s;
}

// bf16 linear rounded by truncation instead of to nearest even: errors up
// to a whole bf16 ulp where the bound allows half of one.
static void bf16_truncated(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_linear_bf16_with(args, XF_BF16_TRUNCATED);
}

// bf16 linear whose accumulator is bf16: k roundings of 2^-8 where the
// bound allows one (at k = 2048, tens of bf16 ulps).
static void bf16_accumulator(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_linear_bf16_with(args, XF_BF16_ACCUMULATOR);
}

// bf16 softmax, add_layernorm and embed rounded by truncation, as the
// linear above: outputs up to a whole bf16 ulp off where the bound allows
// half of one (the rounding the bf16 families' kernels do on their last
// stores).
static void bf16_softmax_truncated(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_softmax_bf16_with(args, XF_BF16_TRUNCATED);
}

static void bf16_add_layernorm_truncated(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_add_layernorm_bf16_with(args, XF_BF16_TRUNCATED);
}

static void bf16_embed_truncated(const void *args, void *ctx)
{
    (void)ctx;
    xf_naive_embed_bf16_with(args, XF_BF16_TRUNCATED);
}

static const xf_variant variants[] = {
    XF_VARIANT(XF_ATTENTION, "mutant", "mutant-scale-dropped", "no 1/sqrt(dk)", 1.0, NULL, NULL, scale_dropped, NULL),
    XF_VARIANT(XF_ATTENTION, "mutant", "mutant-mask-shifted", "padding mask off by one key", 1.0, NULL, NULL,
               mask_shifted, NULL),
    XF_VARIANT(XF_ATTENTION, "mutant", "mutant-causal-off", "causal mask ignored", 1.0, NULL, NULL, causal_off, NULL),
    XF_VARIANT(XF_ATTENTION, "mutant", "mutant-heads-swapped", "heads 0 and 1 swapped", 1.0, NULL, NULL,
               heads_swapped, NULL),
    XF_VARIANT(XF_ADD_LAYERNORM, "mutant", "mutant-keras-eps", "LayerNorm eps 1e-3", 1.0, NULL, NULL, keras_eps, NULL),
    XF_VARIANT(XF_RMSNORM, "mutant", "mutant-rms-eps-dropped", "RMSNorm without eps", 1.0, NULL, NULL,
               rms_eps_dropped, NULL),
    XF_VARIANT(XF_LINEAR, "mutant", "mutant-write-past-end", "writes y[m*n]", 1.0, NULL, NULL, write_past_end, NULL),
    XF_VARIANT(XF_LINEAR, "mutant", "mutant-bias-dropped", "bias ignored", 1.0, NULL, NULL, bias_dropped, NULL),
    XF_VARIANT(XF_LINEAR, "mutant", "mutant-last-row-skipped", "last row not written", 1.0, NULL, NULL,
               last_row_skipped, NULL),
    XF_VARIANT(XF_SOFTMAX, "mutant", "mutant-softmax-mask-ignored", "padding ignored", 1.0, NULL, NULL,
               softmax_mask_ignored, NULL),
    XF_VARIANT(XF_EMBED, "mutant", "mutant-embed-unscaled", "no sqrt(d_model)", 1.0, NULL, NULL, embed_unscaled,
               NULL),
    XF_VARIANT(XF_LM_HEAD, "mutant", "mutant-lm-head-scaled", "logits times sqrt(d_model)", 1.0, NULL, NULL,
               lm_head_scaled, NULL),
    {.stage = XF_LINEAR, .family = "mutant", .name = "mutant-bf16-truncated", .dtype = XF_BF16,
     .summary = "bf16 output truncated, not rounded to nearest even", .math_ulp = 1.0, .run = bf16_truncated},
    {.stage = XF_LINEAR, .family = "mutant", .name = "mutant-bf16-accumulator", .dtype = XF_BF16,
     .summary = "bf16 accumulator (rounded after every term)", .math_ulp = 1.0, .run = bf16_accumulator},
    {.stage = XF_SOFTMAX, .family = "mutant", .name = "mutant-bf16-softmax-truncated", .dtype = XF_BF16,
     .summary = "bf16 probabilities truncated, not rounded to nearest even", .math_ulp = 1.0,
     .run = bf16_softmax_truncated},
    {.stage = XF_ADD_LAYERNORM, .family = "mutant", .name = "mutant-bf16-add-layernorm-truncated", .dtype = XF_BF16,
     .summary = "bf16 LayerNorm output truncated, not rounded to nearest even", .math_ulp = 1.0,
     .run = bf16_add_layernorm_truncated},
    {.stage = XF_EMBED, .family = "mutant", .name = "mutant-bf16-embed-truncated", .dtype = XF_BF16,
     .summary = "bf16 embedding truncated, not rounded to nearest even", .math_ulp = 1.0,
     .run = bf16_embed_truncated},
#ifdef XF_HAVE_AVX2BF16
    // The avx2bf16 linear with the halves of each pair exchanged in its
    // few-row panels: columns j and j + 8 of every 16 trade weights.
    {.stage = XF_LINEAR, .family = "mutant", .name = "mutant-bf16-pair-halves-swapped", .dtype = XF_BF16,
     .summary = "avx2bf16 linear, the halves of each pair exchanged in the few-row panels",
     .unavailable = avx2_unavailable, .prepare = xf_avx2bf16_linear_prepare_pairs_swapped,
     .run = xf_avx2bf16_linear_run, .release = xf_avx2bf16_linear_release},
#endif
#ifdef XF_HAVE_AVX512BF16
    // The avx512bf16 linear with the second pair of k dropped from its
    // packed panels: 2 of k terms missing from every output.
    {.stage = XF_LINEAR, .family = "mutant", .name = "mutant-bf16-dropped-pair", .dtype = XF_BF16,
     .summary = "avx512bf16 linear, pair 1 of k left out of the packed panels",
     .unavailable = XF_DOT_FN(unavailable), .prepare = XF_DOT_FN(linear_prepare_dropped_pair),
     .run = XF_DOT_FN(linear_run), .release = XF_DOT_FN(linear_release)},
    // Its attention with the second pair of dk dropped from the packed K:
    // every score misses two of its dk products.
    {.stage = XF_ATTENTION, .family = "mutant", .name = "mutant-bf16-attention-dropped-pair", .dtype = XF_BF16,
     .summary = "avx512bf16 attention, pair 1 of dk left out of the packed keys", .math_ulp = XF_SIMD_EXP_ULP,
     .p_bf16 = 1, .unavailable = XF_DOT_FN(unavailable), .prepare = XF_DOT_FN(attention_prepare_dropped_pair),
     .run = XF_DOT_FN(attention_run), .release = XF_DOT_FN(attention_release)},
#endif
#ifdef XF_HAVE_AMX
    // The AMX linear with the two halves of every pair of k exchanged in
    // its packed tiles: each product meets its neighbour's weight.
    {.stage = XF_LINEAR, .family = "mutant", .name = "mutant-amx-pairs-swapped", .dtype = XF_BF16,
     .summary = "amx linear, the halves of each pair of k exchanged in the packed tiles",
     .unavailable = xf_amx_family_unavailable, .prepare = xf_amx_linear_prepare_pairs_swapped,
     .run = xf_amx_linear_run, .release = xf_amx_linear_release},
    // Its attention with the halves of every pair of dk exchanged in the
    // packed K: every score pairs each query element with its neighbour's key.
    {.stage = XF_ATTENTION, .family = "mutant", .name = "mutant-amx-attention-pairs-swapped", .dtype = XF_BF16,
     .summary = "amx attention, the halves of each pair of dk exchanged in the packed keys",
     .math_ulp = XF_SIMD_EXP_ULP, .p_bf16 = 1, .unavailable = xf_amx_family_unavailable,
     .prepare = xf_amx_attention_prepare_pairs_swapped, .run = xf_amx_attention_run,
     .release = xf_amx_attention_release},
    // The AMX linear whose last thread skips its rows or panels: right on
    // one thread, wrong on two (the tests that run it threaded must be).
    {.stage = XF_LINEAR, .family = "mutant", .name = "mutant-amx-last-share-dropped", .dtype = XF_BF16,
     .summary = "amx linear, the last thread's share left unwritten (2 or more threads)",
     .unavailable = xf_amx_family_unavailable, .prepare = xf_amx_linear_prepare_last_share_dropped,
     .run = xf_amx_linear_run, .release = xf_amx_linear_release},
#endif
    XF_VARIANTS_END,
};

const xf_family xf_family_mutant = {.name = "mutant", .cflags = XF_FAMILY_CFLAGS, .variants = variants};
