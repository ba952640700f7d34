// The oneDNN peer (oneDNN 2.6, C API): what a user would build with its
// primitives. Primitive creation and weight reorders happen in prepare,
// never in the timed region; run only sets data pointers and executes.
//   linear:        matmul, weights reordered into the layout the primitive
//                  prefers (format_tag any), bias and ReLU as attributes;
//                  in fp32, and in bf16 (--dtype bf16) where oneDNN has a
//                  bf16 matmul for the CPU.
//   softmax:       our pass for scale and mask (oneDNN's softmax takes
//                  neither), its softmax primitive in place, zeros for rows
//                  with no visible key (where it gives NaN).
//   add_layernorm: binary add, then layer_normalization with scale, shift.
//   attention:     batched strided matmul Q K^T (scale as output scale),
//                  our mask pass, softmax, batched strided matmul P V.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "../isa/isa.h"
#include "../variant.h"

static dnnl_engine_t engine;
static dnnl_stream_t stream;

// Released at exit, so leak checkers see only what oneDNN itself keeps.
static void release_engine(void)
{
    if (stream) dnnl_stream_destroy(stream);
    if (engine) dnnl_engine_destroy(engine);
    stream = NULL, engine = NULL;
}

// 0 once the engine and stream exist (made on first use), -1 if oneDNN
// could not make them.
static int engine_start(void)
{
    if (engine) return 0;
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) return -1;
    if (dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        dnnl_engine_destroy(engine), engine = NULL;
        return -1;
    }
    atexit(release_engine);
    return 0;
}

#define OK(call)                                                                             \
    do {                                                                                     \
        if ((call) != dnnl_success) goto fail;                                               \
    } while (0)

// A primitive with the memories it runs on; run() points them at the
// buffers of the call and executes.
enum { MAX_ARGS = 6 };
typedef struct {
    dnnl_primitive_t prim;
    dnnl_exec_arg_t args[MAX_ARGS];
    int nargs;
} prim;

static int make_prim(prim *p, const_dnnl_op_desc_t desc, const_dnnl_primitive_attr_t attr)
{
    dnnl_primitive_desc_t pd = NULL;
    if (dnnl_primitive_desc_create(&pd, desc, attr, engine, NULL) != dnnl_success) return -1;
    int rc = dnnl_primitive_create(&p->prim, pd) == dnnl_success ? 0 : -1;
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int add_arg(prim *p, int arg, const dnnl_memory_desc_t *md, void *data)
{
    dnnl_memory_t m;
    if (dnnl_memory_create(&m, md, engine, data ? data : DNNL_MEMORY_NONE) != dnnl_success) return -1;
    p->args[p->nargs++] = (dnnl_exec_arg_t){arg, m};
    return 0;
}

static void set(prim *p, int i, const void *data) { dnnl_memory_set_data_handle(p->args[i].memory, (void *)data); }

static void exec(prim *p)
{
    dnnl_primitive_execute(p->prim, stream, p->nargs, p->args);
    dnnl_stream_wait(stream);
}

static void free_prim(prim *p)
{
    for (int i = 0; i < p->nargs; i++) dnnl_memory_destroy(p->args[i].memory);
    if (p->prim) dnnl_primitive_destroy(p->prim);
}

// The API takes full DNNL_MAX_NDIMS arrays; ours are as long as nd.
static dnnl_memory_desc_t md_tag_of(int nd, const dnnl_dim_t *dims, dnnl_format_tag_t tag, dnnl_data_type_t dt)
{
    dnnl_memory_desc_t md;
    dnnl_dims_t d = {0};
    memcpy(d, dims, (size_t)nd * sizeof *dims);
    dnnl_memory_desc_init_by_tag(&md, nd, d, dt, tag);
    return md;
}

static dnnl_memory_desc_t md_tag(int nd, const dnnl_dim_t *dims, dnnl_format_tag_t tag)
{
    return md_tag_of(nd, dims, tag, dnnl_f32);
}

static dnnl_memory_desc_t md_strides(int nd, const dnnl_dim_t *dims, const dnnl_dim_t *strides)
{
    dnnl_memory_desc_t md;
    dnnl_dims_t d = {0}, s = {0};
    memcpy(d, dims, (size_t)nd * sizeof *dims);
    memcpy(s, strides, (size_t)nd * sizeof *strides);
    dnnl_memory_desc_init_by_strides(&md, nd, d, dnnl_f32, s);
    return md;
}

// ---- linear --------------------------------------------------------------

typedef struct {
    prim mm;          // args: SRC, WEIGHTS (reordered), DST[, BIAS]
    void *weights;    // in the primitive's layout
} linear_ctx;

static void linear_release(void *ctx)
{
    linear_ctx *c = ctx;
    if (!c) return;
    free_prim(&c->mm);
    free(c->weights);
    free(c);
}

// bf16 (dtype XF_BF16): source, weights, bias and destination in bf16,
// oneDNN's accumulation in fp32 and its rounding of the output.
static int linear_prepare(const void *args, void **ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *c = calloc(1, sizeof *c);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_desc_t pd = NULL, rpd = NULL;
    dnnl_primitive_t reorder = NULL;
    dnnl_memory_t user_w = NULL, packed_w = NULL;
    const int bf16 = a->dtype == XF_BF16;
    const dnnl_data_type_t dt = bf16 ? dnnl_bf16 : dnnl_f32;
    const void *bias = bf16 ? (const void *)a->b16 : (const void *)a->b;
    if (!c || engine_start()) goto fail;
    dnnl_dim_t xd[2] = {a->m, a->k}, wd[2] = {a->k, a->n}, yd[2] = {a->m, a->n}, bd[2] = {1, a->n};
    dnnl_memory_desc_t x = md_tag_of(2, xd, dnnl_ab, dt), w_any = md_tag_of(2, wd, dnnl_format_tag_any, dt),
                       w_user = md_tag_of(2, wd, dnnl_ba, dt), y = md_tag_of(2, yd, dnnl_ab, dt),
                       b = md_tag_of(2, bd, dnnl_ab, dt);
    dnnl_matmul_desc_t desc;
    OK(dnnl_matmul_desc_init(&desc, &x, &w_any, bias ? &b : NULL, &y));
    OK(dnnl_primitive_attr_create(&attr));
    if (a->relu) {
        OK(dnnl_post_ops_create(&po));
        OK(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
        OK(dnnl_primitive_attr_set_post_ops(attr, po));
    }
    OK(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL));
    const dnnl_memory_desc_t *w_best = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    c->weights = aligned_alloc(64, (dnnl_memory_desc_get_size(w_best) + 63) / 64 * 64 + 64);
    if (!c->weights) goto fail;
    // The weight reorder: once, here, as oneDNN users prepack.
    OK(dnnl_memory_create(&user_w, &w_user, engine, bf16 ? (void *)a->w16 : (void *)a->w));
    OK(dnnl_memory_create(&packed_w, w_best, engine, c->weights));
    OK(dnnl_reorder_primitive_desc_create(&rpd, &w_user, engine, w_best, engine, NULL));
    OK(dnnl_primitive_create(&reorder, rpd));
    dnnl_exec_arg_t rargs[2] = {{DNNL_ARG_FROM, user_w}, {DNNL_ARG_TO, packed_w}};
    OK(dnnl_primitive_execute(reorder, stream, 2, rargs));
    OK(dnnl_stream_wait(stream));
    OK(dnnl_primitive_create(&c->mm.prim, pd));
    if (add_arg(&c->mm, DNNL_ARG_SRC, &x, NULL) || add_arg(&c->mm, DNNL_ARG_WEIGHTS, w_best, c->weights) ||
        add_arg(&c->mm, DNNL_ARG_DST, &y, NULL) || (bias && add_arg(&c->mm, DNNL_ARG_BIAS, &b, NULL)))
        goto fail;
    dnnl_primitive_destroy(reorder), dnnl_primitive_desc_destroy(rpd), dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(user_w), dnnl_memory_destroy(packed_w);
    if (po) dnnl_post_ops_destroy(po);
    dnnl_primitive_attr_destroy(attr);
    *ctx = c;
    return 0;
fail:
    if (reorder) dnnl_primitive_destroy(reorder);
    if (rpd) dnnl_primitive_desc_destroy(rpd);
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (user_w) dnnl_memory_destroy(user_w);
    if (packed_w) dnnl_memory_destroy(packed_w);
    if (po) dnnl_post_ops_destroy(po);
    if (attr) dnnl_primitive_attr_destroy(attr);
    linear_release(c);
    return -1;
}

// x is (m,k), y is (m,n); w was reordered in prepare
static void linear_run(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    linear_ctx *c = ctx;
    const int bf16 = a->dtype == XF_BF16;
    set(&c->mm, 0, bf16 ? (const void *)a->x16 : (const void *)a->x);
    set(&c->mm, 2, bf16 ? (void *)a->y16 : (void *)a->y);
    if (c->mm.nargs > 3) set(&c->mm, 3, bf16 ? (const void *)a->b16 : (const void *)a->b);
    exec(&c->mm);
}

// Whether oneDNN has a bf16 matmul for this CPU (2.6: from AVX-512 on; an
// AVX2 CPU gets none): a small primitive descriptor, tried once.
static const char *bf16_unavailable(void)
{
    static int tried, missing;
    if (!tried) {
        tried = 1;
        dnnl_dim_t xd[2] = {8, 32}, wd[2] = {32, 16}, yd[2] = {8, 16};
        dnnl_memory_desc_t x = md_tag_of(2, xd, dnnl_ab, dnnl_bf16), w = md_tag_of(2, wd, dnnl_format_tag_any, dnnl_bf16),
                           y = md_tag_of(2, yd, dnnl_ab, dnnl_bf16);
        dnnl_matmul_desc_t desc;
        dnnl_primitive_desc_t pd = NULL;
        missing = engine_start() || dnnl_matmul_desc_init(&desc, &x, &w, NULL, &y) != dnnl_success ||
                  dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL) != dnnl_success;
        if (pd) dnnl_primitive_desc_destroy(pd);
    }
    return missing ? "oneDNN has no bf16 matmul for this CPU (ISA)" : NULL;
}

// ---- softmax -------------------------------------------------------------

// Rows of (rows/seq_q, seq_q, seq_k) scores: scale, -inf where masked;
// returns whether row i of batch b sees any key.
static int mask_row(float *s, int n, float scale, const uint8_t *pad, int causal, int i)
{
    int any = 0;
    for (int j = 0; j < n; j++) {
        int vis = xf_key_visible(pad, causal, i, j);
        s[j] = vis ? s[j] * scale : -INFINITY;
        any |= vis;
    }
    return any;
}

// Softmax in place over rows of scores s ((batch, heads, seq_q) rows of
// seq_k): scaled and masked by mask_row, oneDNN's softmax (sm), then rows
// with no visible key set to zeros instead of the NaN oneDNN gives them.
static void masked_softmax(prim *sm, float *s, int batch, int heads, int seq_q, int seq_k, float scale,
                           const uint8_t *key_pad, int causal)
{
    const size_t rows = (size_t)batch * heads * seq_q;
    if (key_pad || causal || scale != 1.0f)
        for (size_t r = 0; r < rows; r++) {
            const int b = (int)(r / ((size_t)heads * seq_q)), i = (int)(r % seq_q);
            mask_row(s + r * seq_k, seq_k, scale, key_pad ? key_pad + (size_t)b * seq_k : NULL, causal, i);
        }
    set(sm, 0, s), set(sm, 1, s);
    exec(sm);
    for (size_t r = 0; r < rows; r++)
        if (isnan(s[r * seq_k])) memset(s + r * seq_k, 0, (size_t)seq_k * sizeof *s);
}

typedef struct {
    prim sm; // args: SRC, DST (both y: in place)
} softmax_ctx;

static void softmax_release(void *ctx)
{
    softmax_ctx *c = ctx;
    if (c) free_prim(&c->sm);
    free(c);
}

static int softmax_prim(prim *p, dnnl_dim_t rows, dnnl_dim_t n)
{
    dnnl_dim_t d[2] = {rows, n};
    dnnl_memory_desc_t md = md_tag(2, d, dnnl_ab);
    dnnl_softmax_v2_desc_t desc;
    if (dnnl_softmax_v2_forward_desc_init(&desc, dnnl_forward_inference, dnnl_softmax_accurate, &md, &md, 1) != dnnl_success)
        return -1;
    if (make_prim(p, &desc, NULL)) return -1;
    return add_arg(p, DNNL_ARG_SRC, &md, NULL) || add_arg(p, DNNL_ARG_DST, &md, NULL);
}

static int softmax_prepare(const void *args, void **ctx)
{
    const xf_softmax_args *a = args;
    softmax_ctx *c = calloc(1, sizeof *c);
    if (!c || engine_start() || softmax_prim(&c->sm, (dnnl_dim_t)a->batch * a->heads * a->seq_q, a->seq_k)) {
        softmax_release(c);
        return -1;
    }
    *ctx = c;
    return 0;
}

// x and y are (batch,heads,seq_q,seq_k)
static void softmax_run(const void *args, void *ctx)
{
    const xf_softmax_args *a = args;
    softmax_ctx *c = ctx;
    memcpy(a->y, a->x, (size_t)a->batch * a->heads * a->seq_q * a->seq_k * sizeof(float));
    masked_softmax(&c->sm, a->y, a->batch, a->heads, a->seq_q, a->seq_k, a->scale, a->key_pad, a->causal);
}

// ---- add_layernorm --------------------------------------------------------

typedef struct {
    prim add; // SRC_0, SRC_1, DST
    prim ln;  // SRC, DST, SCALE, SHIFT
} ln_ctx;

static void ln_release(void *ctx)
{
    ln_ctx *c = ctx;
    if (!c) return;
    free_prim(&c->add);
    free_prim(&c->ln);
    free(c);
}

static int ln_prepare(const void *args, void **ctx)
{
    const xf_add_layernorm_args *a = args;
    ln_ctx *c = calloc(1, sizeof *c);
    if (!c || engine_start()) goto fail;
    dnnl_dim_t d[2] = {a->rows, a->d}, g[1] = {a->d};
    dnnl_memory_desc_t md = md_tag(2, d, dnnl_ab), gd = md_tag(1, g, dnnl_a);
    dnnl_binary_desc_t add;
    OK(dnnl_binary_desc_init(&add, dnnl_binary_add, &md, &md, &md));
    if (make_prim(&c->add, &add, NULL) || add_arg(&c->add, DNNL_ARG_SRC_0, &md, NULL) ||
        add_arg(&c->add, DNNL_ARG_SRC_1, &md, NULL) || add_arg(&c->add, DNNL_ARG_DST, &md, NULL))
        goto fail;
    dnnl_layer_normalization_desc_t ln;
    OK(dnnl_layer_normalization_forward_desc_init(&ln, dnnl_forward_inference, &md, NULL, XF_LN_EPS,
                                                  dnnl_use_scale | dnnl_use_shift));
    if (make_prim(&c->ln, &ln, NULL) || add_arg(&c->ln, DNNL_ARG_SRC, &md, NULL) ||
        add_arg(&c->ln, DNNL_ARG_DST, &md, NULL) || add_arg(&c->ln, DNNL_ARG_SCALE, &gd, NULL) ||
        add_arg(&c->ln, DNNL_ARG_SHIFT, &gd, NULL))
        goto fail;
    *ctx = c;
    return 0;
fail:
    ln_release(c);
    return -1;
}

// x, r, y are (rows,d): y = x + r, then LayerNorm in place
static void ln_run(const void *args, void *ctx)
{
    const xf_add_layernorm_args *a = args;
    ln_ctx *c = ctx;
    set(&c->add, 0, a->x), set(&c->add, 1, a->r), set(&c->add, 2, a->y);
    exec(&c->add);
    set(&c->ln, 0, a->y), set(&c->ln, 1, a->y), set(&c->ln, 2, a->gamma), set(&c->ln, 3, a->beta);
    exec(&c->ln);
}

// ---- attention ------------------------------------------------------------

typedef struct {
    prim qk, sm, pv; // qk: SRC q, WEIGHTS k^T, DST s; pv: SRC s, WEIGHTS v, DST out
    float *s;        // s is (B,H,Sq,Sk)
} attention_ctx;

static void attention_release(void *ctx)
{
    attention_ctx *c = ctx;
    if (!c) return;
    free_prim(&c->qk), free_prim(&c->sm), free_prim(&c->pv);
    free(c->s);
    free(c);
}

static int attention_prepare(const void *args, void **ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = calloc(1, sizeof *c);
    dnnl_primitive_attr_t attr = NULL;
    if (!c || engine_start()) goto fail;
    const dnnl_dim_t B = a->batch, H = a->heads, Q = a->seq_q, K = a->seq_k, D = a->dk;
    c->s = malloc((size_t)(B * H * Q * K) * sizeof(float));
    if (!c->s) goto fail;
    // Heads as strided views of the (B,S,H*dk) activations.
    dnnl_dim_t qd[4] = {B, H, Q, D}, qs[4] = {Q * a->ldq, D, a->ldq, 1};
    const dnnl_dim_t R = (dnnl_dim_t)xf_attention_kv_rows(a);
    dnnl_dim_t kd[4] = {B, H, D, K}, ks[4] = {R * a->ldk, D, 1, a->ldk};
    dnnl_dim_t sd[4] = {B, H, Q, K};
    dnnl_dim_t vd[4] = {B, H, K, D}, vs[4] = {R * a->ldv, D, a->ldv, 1};
    dnnl_dim_t od[4] = {B, H, Q, D}, os[4] = {Q * a->ldo, D, a->ldo, 1};
    dnnl_memory_desc_t qm = md_strides(4, qd, qs), km = md_strides(4, kd, ks), sm = md_tag(4, sd, dnnl_abcd),
                       vm = md_strides(4, vd, vs), om = md_strides(4, od, os);
    const float scale = 1.0f / sqrtf((float)a->dk);
    OK(dnnl_primitive_attr_create(&attr));
    OK(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale));
    dnnl_matmul_desc_t qk, pv;
    OK(dnnl_matmul_desc_init(&qk, &qm, &km, NULL, &sm));
    if (make_prim(&c->qk, &qk, attr) || add_arg(&c->qk, DNNL_ARG_SRC, &qm, NULL) ||
        add_arg(&c->qk, DNNL_ARG_WEIGHTS, &km, NULL) || add_arg(&c->qk, DNNL_ARG_DST, &sm, c->s))
        goto fail;
    if (softmax_prim(&c->sm, B * H * Q, K)) goto fail;
    OK(dnnl_matmul_desc_init(&pv, &sm, &vm, NULL, &om));
    if (make_prim(&c->pv, &pv, NULL) || add_arg(&c->pv, DNNL_ARG_SRC, &sm, c->s) ||
        add_arg(&c->pv, DNNL_ARG_WEIGHTS, &vm, NULL) || add_arg(&c->pv, DNNL_ARG_DST, &om, NULL))
        goto fail;
    dnnl_primitive_attr_destroy(attr);
    *ctx = c;
    return 0;
fail:
    if (attr) dnnl_primitive_attr_destroy(attr);
    attention_release(c);
    return -1;
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk)
static void attention_run(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = ctx;
    set(&c->qk, 0, a->q), set(&c->qk, 1, a->k);
    exec(&c->qk);
    // (the 1/sqrt(dk) scale is the Q K^T matmul's)
    masked_softmax(&c->sm, c->s, a->batch, a->heads, a->seq_q, a->seq_k, 1.0f, a->key_pad, a->causal);
    set(&c->pv, 1, a->v), set(&c->pv, 2, a->out);
    exec(&c->pv);
}

// oneDNN's CPU runtime here is OpenMP: it follows omp_set_num_threads.
static const xf_variant variants[] = {
    XF_VARIANT(XF_LINEAR, "dnnl", "dnnl", "matmul primitive, weights reordered to its layout in prepare, bias+ReLU attrs",
               1.0, NULL, linear_prepare, linear_run, linear_release),
    XF_VARIANT(XF_SOFTMAX, "dnnl", "dnnl", "our scale+mask pass, softmax primitive in place", 4.0, NULL,
               softmax_prepare, softmax_run, softmax_release),
    XF_VARIANT(XF_ATTENTION, "dnnl", "dnnl", "strided batched matmul, our mask pass, softmax, matmul", 4.0, NULL,
               attention_prepare, attention_run, attention_release),
    XF_VARIANT(XF_ADD_LAYERNORM, "dnnl", "dnnl", "binary add, layer_normalization primitive", 4.0, NULL, ln_prepare,
               ln_run, ln_release),
    {.stage = XF_LINEAR, .family = "dnnl", .name = "dnnl", .dtype = XF_BF16,
     .summary = "bf16 matmul primitive (bf16 source, weights, bias, destination), weights reordered in prepare",
     .unavailable = bf16_unavailable, .prepare = linear_prepare, .run = linear_run, .release = linear_release},
    XF_VARIANTS_END,
};

// oneDNN's effective ISA (what its JIT targets here, after
// ONEDNN_MAX_CPU_ISA), by name and by the xf_isa level it reaches.
static void runtime(char *buf, size_t size)
{
    static const struct {
        dnnl_cpu_isa_t isa;
        const char *name;
        xf_isa level;
    } isas[] = {{dnnl_cpu_isa_avx512_core_amx, "avx512_core_amx", XF_ISA_AVX512BF16},
                {dnnl_cpu_isa_avx512_core_bf16, "avx512_core_bf16", XF_ISA_AVX512BF16},
                {dnnl_cpu_isa_avx512_core_vnni, "avx512_core_vnni", XF_ISA_AVX512},
                {dnnl_cpu_isa_avx512_core, "avx512_core", XF_ISA_AVX512},
                {dnnl_cpu_isa_avx2_vnni, "avx2_vnni", XF_ISA_AVX2},
                {dnnl_cpu_isa_avx2, "avx2", XF_ISA_AVX2},
                {dnnl_cpu_isa_avx, "avx", XF_ISA_SCALAR},
                {dnnl_cpu_isa_sse41, "sse41", XF_ISA_SCALAR}};
    const dnnl_cpu_isa_t have = dnnl_get_effective_cpu_isa();
    const char *name = "unknown";
    xf_isa level = XF_ISA_SCALAR;
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++)
        if (isas[i].isa == have) name = isas[i].name, level = isas[i].level;
    const char *cap = getenv("ONEDNN_MAX_CPU_ISA"), *why = xf_peer_env_why("ONEDNN_MAX_CPU_ISA");
    int n = snprintf(buf, size, "%s", name);
    // At the CPU's level but capped by xfbench (avx512bf16: no AMX): said too.
    if (level >= xf_isa_level() && why && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - n, "; ONEDNN_MAX_CPU_ISA=%s (xfbench's cap)", cap);
    else if (level < xf_isa_level() && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - n, "; below this CPU's %s: %s%s%s", xf_isa_name(xf_isa_level()),
                 cap && *cap ? "ONEDNN_MAX_CPU_ISA=" : "oneDNN 2.6 dispatches no wider ISA here",
                 cap && *cap ? cap : "", cap && *cap ? (why ? " (xfbench's cap)" : " (from the environment)") : "");
}

// oneDNN's bf16 matmul uses AMX's tiles at avx512_core_amx, the bf16 dot
// product at avx512_core_bf16; below, it converts to fp32 and uses FMA.
// Named, not compared: the ISA values are bit sets (avx2_vnni, 0x407, is
// above avx512_core_bf16).
static xf_bf16_arith bf16_arith(void)
{
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    return isa == dnnl_cpu_isa_avx512_core_amx    ? XF_ARITH_AMX
           : isa == dnnl_cpu_isa_avx512_core_bf16 ? XF_ARITH_DOT
                                                  : XF_ARITH_FMA;
}

const xf_family xf_family_dnnl = {.name = "dnnl", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                  .runtime_column = "dnnl_isa", .runtime = runtime, .bf16_arith = bf16_arith};
