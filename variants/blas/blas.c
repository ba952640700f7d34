// The OpenBLAS peer: what a user would write with cblas_sgemm. Linear is
// one sgemm on the weight as PyTorch stores it (W^T through TransB) onto
// rows pre-filled with the bias (beta = 1), then a ReLU pass if asked;
// attention is two sgemm calls per batch and head around the best softmax
// row this build and CPU offer (avx512, else avx2, else naive).
#define _GNU_SOURCE // sched_setaffinity, cpu_set_t
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../isa/huge.h"
#include "../isa/isa.h"
#include "../naive/naive.h"

#if defined(XF_HAVE_AVX512) || defined(XF_HAVE_AVX2)
#include "../simd/kernel_table.h"
#endif

typedef void (*softmax_row_fn)(int n, float *t, float scale, const uint8_t *pad_row, int causal, int i);

static void naive_row(int n, float *t, float scale, const uint8_t *pad_row, int causal, int i)
{
    for (int j = 0; j < n; j++) t[j] *= scale;
    xf_naive_softmax_row(n, t, pad_row, causal, i);
}

// The widest SIMD family's row the CPU allows, else naive's.
static softmax_row_fn widest_softmax_row(void)
{
#if defined(XF_HAVE_AVX512) || defined(XF_HAVE_AVX2)
    const xf_simd_kernels *k = xf_simd_widest_kernels();
    if (k) return k->softmax_row;
#endif
    return naive_row;
}

// x is (m,k), w is (n,k), y is (m,n)
static void linear(const void *args, void *ctx)
{
    (void)ctx;
    const xf_linear_args *a = args;
    for (int i = 0; i < a->m; i++) {
        float *y = a->y + (size_t)i * a->n;
        if (a->b) memcpy(y, a->b, (size_t)a->n * sizeof *y);
        else memset(y, 0, (size_t)a->n * sizeof *y);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, a->m, a->n, a->k, 1.0f, a->x, a->k, a->w,
                a->k, 1.0f, a->y, a->n);
    if (a->relu)
        for (size_t i = 0; i < (size_t)a->m * a->n; i++) a->y[i] = a->y[i] > 0.0f ? a->y[i] : 0.0f;
}

typedef struct {
    float *s;
    softmax_row_fn row;
} attention_ctx;

static int attention_prepare(const void *args, void **ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = malloc(sizeof *c);
    if (!c) return -1;
    c->s = xf_alloc_lines((size_t)a->seq_q * a->seq_k * sizeof(float));
    if (!c->s) return free(c), -1;
    c->row = widest_softmax_row();
    *ctx = c;
    return 0;
}

static void attention_release(void *ctx)
{
    attention_ctx *c = ctx;
    if (c) free(c->s);
    free(c);
}

// q is (B,Sq,H*dk), k and v (B,Sk,H*dk), with row strides; out (B,Sq,H*dk)
static void attention(const void *args, void *ctx)
{
    const xf_attention_args *a = args;
    attention_ctx *c = ctx;
    const float scale = 1.0f / sqrtf((float)a->dk);
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++) {
            const xf_attention_head x = xf_attention_head_at(a, b, h);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, a->seq_q, a->seq_k, a->dk, 1.0f, x.q,
                        a->ldq, x.k, a->ldk, 0.0f, c->s, a->seq_k);
            for (int i = 0; i < a->seq_q; i++) c->row(a->seq_k, c->s + (size_t)i * a->seq_k, scale, pad, a->causal, i);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, a->seq_q, a->dk, a->seq_k, 1.0f, c->s,
                        a->seq_k, x.v, a->ldv, 0.0f, x.out, a->ldo);
        }
    }
}

// OpenBLAS's own (exported, not in cblas.h) thread-pool controls.
void openblas_set_num_threads(int num_threads);
int blas_thread_init(void);
int blas_thread_shutdown_(void);

// OpenBLAS's pthreads build (where its OpenMP one is not installed)
// starts its workers from the main thread, which xfbench's pinning
// (OMP_PROC_BIND=close) may already have bound to the first core: every
// worker inherits that core, and "2 threads" run on one (measured: linear
// 99 GFLOP/s pinned, 201 unpinned). So the pool is restarted while the
// calling thread may run on every online CPU, then the caller's binding is
// put back. The OpenMP build runs on OpenMP's own (pinned) threads: only
// its count is set.
static void set_threads(int n)
{
    if (openblas_get_parallel() == OPENBLAS_OPENMP) {
        openblas_set_num_threads(n);
        return;
    }
    cpu_set_t bound, all;
    const int rebind = sched_getaffinity(0, sizeof bound, &bound) == 0;
    if (rebind) {
        CPU_ZERO(&all);
        for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; c++) CPU_SET(c, &all);
        (void)sched_setaffinity(0, sizeof all, &all); // refused: the pool keeps the caller's binding
    }
    blas_thread_shutdown_();
    openblas_set_num_threads(n);
    blas_thread_init();
    if (rebind) (void)sched_setaffinity(0, sizeof bound, &bound);
}

static const xf_variant variants[] = {
    XF_VARIANT(XF_LINEAR, "blas", "blas", "cblas_sgemm (OpenBLAS) onto bias-filled rows, ReLU pass", 1.0, NULL, NULL,
               linear, NULL),
    XF_VARIANT(XF_ATTENTION, "blas", "blas", "sgemm Q K^T, our best softmax row, sgemm P V", 2.0, NULL,
               attention_prepare, attention, attention_release),
    XF_VARIANTS_END,
};

// The vector level of OpenBLAS 0.3.21's DYNAMIC_ARCH cores
// (openblas_get_corename()): its sgemm on Cooperlake and Sapphire Rapids
// is SkylakeX's AVX-512 kernel; Sandybridge's AVX kernels count as below
// AVX2, like every older core.
static xf_isa core_level(const char *core)
{
    static const struct {
        const char *name;
        xf_isa level;
    } cores[] = {{"SkylakeX", XF_ISA_AVX512}, {"Cooperlake", XF_ISA_AVX512},
                 {"SapphireRapids", XF_ISA_AVX512}, {"Haswell", XF_ISA_AVX2}, {"Zen", XF_ISA_AVX2}};
    for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++)
        if (core && !strcasecmp(core, cores[i].name)) return cores[i].level;
    return XF_ISA_SCALAR;
}

// The level OpenBLAS should reach here: the CPU's (capped), at most
// AVX-512, its widest fp32 kernels.
static xf_isa wanted_level(void)
{
    const xf_isa l = xf_isa_level();
    return l < XF_ISA_AVX512 ? l : XF_ISA_AVX512;
}

// Its own detection, when below the CPU's level and the user left
// OPENBLAS_CORETYPE unset, replaced by the core of the CPU's level.
// OpenBLAS reads the variable when it is loaded, so the caller restarts.
static int raise_dispatch(void)
{
    const char *have = getenv("OPENBLAS_CORETYPE");
    const char *core = openblas_get_corename();
    const xf_isa want = wanted_level();
    if ((have && *have) || core_level(core) >= want || want == XF_ISA_SCALAR) return 0;
    // Cooperlake where the CPU has AVX512_BF16: the same sgemm as
    // SkylakeX, and OpenBLAS's bf16 kernels beside it.
    const char *to = want == XF_ISA_AVX2 ? "Haswell" : xf_isa_level() >= XF_ISA_AVX512BF16 ? "Cooperlake" : "SkylakeX";
    char why[128];
    snprintf(why, sizeof why, "set by xfbench: OpenBLAS detected %s, below this CPU's %s", core ? core : "nothing",
             xf_isa_name(want));
    xf_peer_env_set("OPENBLAS_CORETYPE", to, why);
    return 1;
}

// "SkylakeX", with where it came from and the build's threading (meson.build
// prefers the OpenMP one); where it is below the CPU's level (a user's
// OPENBLAS_CORETYPE, or a core this OpenBLAS lacks), why.
static void runtime(char *buf, size_t size)
{
    const char *core = openblas_get_corename(), *set = getenv("OPENBLAS_CORETYPE");
    const char *why = xf_peer_env_why("OPENBLAS_CORETYPE");
    static const char *const builds[] = {"sequential", "pthreads", "OpenMP"};
    const int parallel = openblas_get_parallel();
    int n = snprintf(buf, size, "%s", core ? core : "unknown");
    if (n < 0 || (size_t)n >= size) return;
    if (why) n += snprintf(buf + n, size - n, " (OPENBLAS_CORETYPE=%s %s)", set, why);
    else if (set && *set) n += snprintf(buf + n, size - n, " (OPENBLAS_CORETYPE=%s from the environment)", set);
    else n += snprintf(buf + n, size - n, " (its own detection)");
    if (n < 0 || (size_t)n >= size) return;
    if (core_level(core) < wanted_level())
        n += snprintf(buf + n, size - n, "; below this CPU's %s: %s", xf_isa_name(wanted_level()),
                      set && *set ? "OPENBLAS_CORETYPE holds it there" : "this OpenBLAS has no kernels for it");
    if (n < 0 || (size_t)n >= size) return;
    snprintf(buf + n, size - n, ", %s build", parallel >= 0 && parallel <= 2 ? builds[parallel] : "unknown");
}

const xf_family xf_family_blas = {.name = "blas", .cflags = XF_FAMILY_CFLAGS, .variants = variants,
                                  .set_threads = set_threads, .runtime_column = "blas_core",
                                  .runtime = runtime, .raise_dispatch = raise_dispatch};
